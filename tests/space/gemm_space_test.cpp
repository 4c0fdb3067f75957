// The GEMM spaces: the cuBLASLt baseline they name, and the template's headers inlined into their version.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace {

using testing::TempSpaces;

TEST(GemmSpace, NamesTheCublasLtBaselineOfThePlainProduct) {
  for (const char* file : {"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    const auto baseline = space.baseline(space.resolve_problem("M=77,N=5000,K=4096,B_KMAJOR=1"));
    ASSERT_TRUE(baseline) << file;
    EXPECT_EQ(baseline->library, "cublasLt");
    EXPECT_EQ(baseline->m, 77);
    EXPECT_EQ(baseline->n, 5000);
    EXPECT_EQ(baseline->k, 4096);
    EXPECT_TRUE(baseline->b_kmajor);
    EXPECT_EQ(baseline->a, "A");
    EXPECT_EQ(baseline->d, "D");
    EXPECT_EQ(baseline->input,
              std::string(file).find("bf16") != std::string::npos ? DType::bf16 : DType::f16);
    EXPECT_EQ(baseline->output, baseline->input);
    EXPECT_FALSE(space.baseline(space.resolve_problem("B_KMAJOR=0")).value().b_kmajor);
    // The library's plain product is no baseline for a product with a bias or an activation.
    EXPECT_FALSE(space.baseline(space.resolve_problem("BIAS=1")));
    EXPECT_FALSE(space.baseline(space.resolve_problem("ACT=2")));
  }
}

TEST(GemmSpace, ASpaceWithoutBaselineHasNone) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/saxpy.json");
  EXPECT_FALSE(space.baseline(space.resolve_problem("")));
}

TEST(GemmSpace, BaselineErrorsNameTheField) {
  TempSpaces temp;
  const auto expect_error = [&](const std::string& baseline, const std::string& expected) {
    const auto file = temp.write([&](auto& json) { json["Baseline"] = baseline; });
    try {
      SearchSpace::load(file);
      ADD_FAILURE() << "no error for " << baseline;
    } catch (const SpaceError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("Baseline"), std::string::npos) << error.what();
    }
  };
  expect_error("cuDNN", "unknown baseline 'cuDNN' (known: cublasLt)");
  // saxpy has no A [M, K]: the library's product does not fit it.
  expect_error("cublasLt", "needs a Vector argument 'A'");
}

TEST(GemmSpace, TheVersionCoversTheTemplatesOwnHeaders) {
  // A template's own headers (kernels/common/sm90/*.cuh for the GEMM template) are part of what every variant
  // compiles, so of the space's version: a changed header makes a new version, whose results are its own.
  TempSpaces temp;
  std::ifstream saxpy(testing::kSpaces / "saxpy.cu");
  const std::string kernel((std::istreambuf_iterator<char>(saxpy)), std::istreambuf_iterator<char>());
  const auto header = temp.write_text("helpers.cuh", "#pragma once\n// version 1\n");
  const auto templ = temp.write_text("t.cu", "#include \"helpers.cuh\"\n" + kernel);
  const auto file =
      temp.write([&](auto& json) { json["KernelSpecification"]["KernelFile"] = templ.string(); });
  const std::string before = SearchSpace::load(file).hash();
  EXPECT_EQ(SearchSpace::load(file).hash(), before);
  temp.write_text("helpers.cuh", "#pragma once\n// version 2\n");
  EXPECT_NE(SearchSpace::load(file).hash(), before);
  (void)header;
}

}  // namespace
}  // namespace evotune
