// A template's own headers are inlined into the variant's source, once each, with #line directives.
#include "gen/local_includes.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/scratch_dir.hpp"
#include "gen/kernel_source.hpp"

namespace evotune {
namespace local_includes_test {

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

class LocalIncludesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir.path() / "common/base.cuh", "#pragma once\nint base();\n");
    write(dir.path() / "common/pipe.cuh",
          "#pragma once\n#include \"base.cuh\"\ntemplate <int Stages> struct Pipe {};\n");
    write(dir.path() / "gemm/t.cu",
          "#include <cuda_fp16.h>\n#include \"../common/pipe.cuh\"\n#include \"../common/base.cuh\"\n"
          "#ifndef STAGES\n#endif\n__global__ void k() {}\n");
  }
  ScratchDir dir{"localincludes"};
};

TEST_F(LocalIncludesTest, InlinesEachHeaderOnceWithLineDirectives) {
  LocalIncludes includes(dir.path() / "gemm");
  const std::string text = includes.expand(
      "#include <cuda_fp16.h>\n#include \"../common/pipe.cuh\"\n#include \"../common/base.cuh\"\nint x;\n",
      "t.cu");
  EXPECT_EQ(text,
            "#include <cuda_fp16.h>\n"
            "// #include \"../common/pipe.cuh\"  (inlined by evotune)\n"
            "#line 1 \"../common/pipe.cuh\"\n"
            "\n"
            "// #include \"base.cuh\"  (inlined by evotune)\n"
            "#line 1 \"base.cuh\"\n"
            "\n"
            "int base();\n"
            "#line 3 \"../common/pipe.cuh\"\n"
            "template <int Stages> struct Pipe {};\n"
            "#line 3 \"t.cu\"\n"
            "// #include \"../common/base.cuh\"  (inlined above)\n"
            "int x;\n");
}

TEST_F(LocalIncludesTest, LeavesIncludesOfNoLocalFileAlone) {
  LocalIncludes includes(dir.path() / "gemm");
  const std::string text = "#include \"missing.cuh\"\n#include <cuda_bf16.h>\n";
  EXPECT_EQ(includes.expand(text, "t.cu"), text);
}

TEST_F(LocalIncludesTest, RenderedVariantIsSelfContainedWithHeadersAheadOfTheParameters) {
  std::ifstream in(dir.path() / "gemm/t.cu");
  const std::string templ((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto with = render_source(templ, "t.cu", {{"STAGES", 4}}, true, dir.path() / "gemm");
  const auto without = render_source(templ, "t.cu", {{"STAGES", 4}});
  EXPECT_EQ(with.text.find("#include \"../common/pipe.cuh\"\n"), std::string::npos);
  EXPECT_NE(with.text.find("template <int Stages> struct Pipe {};"), std::string::npos);
  // The headers come before the parameters (a #define STAGES cannot reach into them), and the template's own
  // lines keep their numbers after the defines.
  EXPECT_LT(with.text.find("struct Pipe"), with.text.find("#define STAGES 4"));
  EXPECT_NE(with.text.find("#define STAGES 4\n#line 4 \"t.cu\"\n#ifndef STAGES"), std::string::npos)
      << with.text;
  EXPECT_NE(with.hash, without.hash);
}

TEST_F(LocalIncludesTest, AChangedHeaderChangesTheHash) {
  std::ifstream in(dir.path() / "gemm/t.cu");
  const std::string templ((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto before = render_source(templ, "t.cu", {}, true, dir.path() / "gemm");
  write(dir.path() / "common/base.cuh", "#pragma once\nint base(int);\n");
  const auto after = render_source(templ, "t.cu", {}, true, dir.path() / "gemm");
  EXPECT_NE(before.hash, after.hash);
}

TEST_F(LocalIncludesTest, ACycleIsAnError) {
  write(dir.path() / "a.cuh", "#include \"b.cuh\"\n");
  write(dir.path() / "b.cuh", "#include \"a.cuh\"\n");
  LocalIncludes includes(dir.path());
  // Each file is inlined once, so a cycle ends at the second visit instead of recursing.
  const std::string text = includes.expand("#include \"a.cuh\"\n", "t.cu");
  EXPECT_NE(text.find("// #include \"a.cuh\"  (inlined above)"), std::string::npos) << text;
}

}  // namespace local_includes_test
}  // namespace evotune
