// `evotune convert`: the written space is an evotune file, in another folder, that reads as the T1 file (or
// the space with Extends) does.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/t1_space.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace convert_command_test {

// `evotune convert INPUT` into `output` (its folder made first); the run's result.
test::CommandResult convert(const std::string& input, const std::filesystem::path& output) {
  std::filesystem::create_directories(output.parent_path());
  return test::run_evotune("convert " + input + " -o " + output.string());
}

nlohmann::ordered_json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::ordered_json::parse(in);
}

TEST(ConvertCommand, WritesAnEquivalentSpaceAnywhere) {
  store_test::TempDir dir;
  const auto output = dir.file("nested/stencil_space.json");
  const auto result = convert("tests/data/t1/stencil.json", output);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("T1 fields accepted without effect on what is measured: General.FormatVersion"),
            std::string::npos)
      << result.err;
  const auto document = read_json(output);
  EXPECT_FALSE(is_t1_document(document));
  EXPECT_EQ(document["Name"], "stencil2d");
  EXPECT_EQ(document["Reference"]["Config"],
            (nlohmann::ordered_json{{"BLOCK_X", 32}, {"BLOCK_Y", 4}, {"TILE_Y", 1}}));
  const auto t1 = SearchSpace::load("tests/data/t1/stencil.json");
  const auto native = SearchSpace::load(output);
  const Sizes sizes = t1.resolve_problem("");
  EXPECT_EQ(native.enumerate(sizes, DeviceInfo{}), t1.enumerate(sizes, DeviceInfo{}));
  EXPECT_EQ(native.template_source(), t1.template_source());
  const Config config{{"BLOCK_X", 64}, {"BLOCK_Y", 2}, {"TILE_Y", 3}};
  EXPECT_EQ(native.variant_launch(config, sizes, DeviceInfo{}).grid,
            t1.variant_launch(config, sizes, DeviceInfo{}).grid);

  const auto again = convert(output.string(), dir.file("again.json"));
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already an evotune space file"), std::string::npos) << again.err;
}

// A space that extends another: the resolved document, its kernel files (template, reference) found from the
// output's folder; it reads as the twin does and stands alone (no Extends).
TEST(ConvertCommand, WritesTheDocumentAnExtendingSpaceIsReadAs) {
  store_test::TempDir dir;
  const auto output = dir.file("nested/gemm_bf16.json");
  const auto result = convert("search_spaces/gemm_wgmma_bf16.json", output);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = read_json(output);
  EXPECT_FALSE(document.contains("Extends"));
  EXPECT_EQ(document["Name"], "gemm_wgmma_bf16");
  const auto twin = SearchSpace::load("search_spaces/gemm_wgmma_bf16.json");
  const auto native = SearchSpace::load(output);
  EXPECT_EQ(native.name(), twin.name());
  EXPECT_EQ(native.template_source(), twin.template_source());
  EXPECT_EQ(native.compiler_options(), twin.compiler_options());
  EXPECT_EQ(native.seeds(), twin.seeds());
  const Sizes sizes = twin.resolve_problem("M=77,N=5000,K=4096,B_KMAJOR=0");
  const DeviceInfo h100 = offline_device("sm_90");
  EXPECT_EQ(native.variant_launch(twin.seeds()[0], sizes, h100).grid,
            twin.variant_launch(twin.seeds()[0], sizes, h100).grid);
}

}  // namespace convert_command_test
}  // namespace evotune
