// Precompiled headers: variants rendered after their template's headers share one, compile to the cubins
// they compiled to before, and a scratch folder that cannot hold one costs nothing but the speed-up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compile/compiler.hpp"
#include "core/scratch_dir.hpp"
#include "gen/kernel_source.hpp"

namespace evotune {
namespace compiler_pch_test {

const char* kTemplate = R"(// A template with a header.
#include <cuda_fp16.h>

#ifndef SCALE
static_assert(false, "SCALE must be #defined");
#endif
extern "C" __global__ void halve(half* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hmul(y[i], __float2half(0.5f * SCALE));
}
)";

CompileRequest request_for(const KernelSource& source) {
  return {source.text, source.file_name, "halve", "sm_90", {"-std=c++17"}};
}

// The layout before the headers were hoisted: #define lines, then #line 1, then the template. NVRTC makes no
// precompiled header of it (a #line directive before the first token stops it).
std::string defines_first(int scale) {
  return "#define SCALE " + std::to_string(scale) + "\n#line 1 \"halve.cu\"\n" + kTemplate;
}

TEST(CompilerPch, VariantsCompileToTheCubinsOfTheOldLayout) {
  const Compiler compiler(cuda_include_dirs());
  const ScratchDir scratch;
  const auto folder = scratch.subfolder("compiler-0");
  ASSERT_FALSE(folder.empty());
  for (int scale : {1, 2, 3}) {
    SCOPED_TRACE(scale);
    const KernelSource source = render_source(kTemplate, "halve.cu", {{"SCALE", scale}});
    const CompileResult hoisted = compiler.compile(request_for(source), folder);
    ASSERT_EQ(hoisted.status, Status::ok) << hoisted.message << "\n" << hoisted.info.log;
    CompileRequest old = request_for(source);
    old.source = defines_first(scale);
    const CompileResult before = compiler.compile(old);
    ASSERT_EQ(before.status, Status::ok) << before.message;
    EXPECT_EQ(hoisted.cubin, before.cubin);
    EXPECT_EQ(hoisted.info.registers, before.info.registers);
    EXPECT_EQ(hoisted.info.log.find("precompiled"), std::string::npos) << hoisted.info.log;
    ASSERT_TRUE(hoisted.info.phases);
  }
  // The scratch folder holds the precompiled header (NVRTC removes it when the process exits).
  bool has_pch = false;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    has_pch |= entry.path().extension() == ".pch";
  EXPECT_TRUE(has_pch);
}

TEST(CompilerPch, MessagesPointIntoTheTemplate) {
  std::string broken = kTemplate;
  broken.replace(broken.find("0.5f * SCALE"), 12, "0.5f * UNKNOWN_NAME");
  const KernelSource source = render_source(broken, "halve.cu", {{"SCALE", 1}});
  const CompileResult result = Compiler(cuda_include_dirs()).compile(request_for(source));
  EXPECT_EQ(result.status, Status::compile_error);
  EXPECT_NE(result.message.find("halve.cu(9)"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("UNKNOWN_NAME"), std::string::npos) << result.message;
}

TEST(CompilerPch, UnusableScratchFolderCostsOnlyTheHelpers) {
  const Compiler compiler(cuda_include_dirs());
  const KernelSource source = render_source(kTemplate, "halve.cu", {{"SCALE", 1}});
  const CompileResult reference = compiler.compile(request_for(source));
  ASSERT_EQ(reference.status, Status::ok) << reference.message;
  // /proc: no file can be made there, not even by root; then a folder that does not exist.
  for (const std::filesystem::path folder : {"/proc", "/nonexistent/evotune/scratch"}) {
    SCOPED_TRACE(folder.string());
    const CompileResult result = compiler.compile(request_for(source), folder);
    EXPECT_EQ(result.status, Status::ok) << result.message << "\n" << result.info.log;
    EXPECT_EQ(result.cubin, reference.cubin);
    EXPECT_EQ(result.info.registers, reference.info.registers);
    EXPECT_FALSE(result.info.phases);
  }
}

TEST(ScratchDir, IsRemovedWithItsContentAndSweepsUpThoseOfDeadProcesses) {
  const auto temp = std::filesystem::temp_directory_path();
  // A folder left by a process that was killed: pid 999999999 is beyond any Linux pid.
  const auto orphan = temp / "evotune-compile-999999999-abcdef";
  std::filesystem::create_directories(orphan / "compiler-0");
  // A folder of a running process (this one) stays.
  const auto alive = temp / ("evotune-compile-" + std::to_string(getpid()) + "-test00");
  std::filesystem::create_directories(alive);
  std::filesystem::path made;
  {
    const ScratchDir scratch;
    made = scratch.path();
    ASSERT_FALSE(made.empty());
    EXPECT_EQ(made.parent_path(), temp);
    EXPECT_EQ(made.filename().string().rfind("evotune-compile-" + std::to_string(getpid()) + "-", 0), 0u);
    const auto sub = scratch.subfolder("compiler-3");
    EXPECT_EQ(sub, made / "compiler-3");
    EXPECT_TRUE(std::filesystem::is_directory(sub));
    std::ofstream(sub / "x_0.pch") << "precompiled";
    EXPECT_FALSE(std::filesystem::exists(orphan));
    EXPECT_TRUE(std::filesystem::exists(alive));
  }
  EXPECT_FALSE(std::filesystem::exists(made));
  std::filesystem::remove_all(alive);
}

TEST(ScratchDir, APurposeNamesTheFolderAndSweepsOnlyItsOwnKind) {
  const auto temp = std::filesystem::temp_directory_path();
  const auto other_kind = temp / "evotune-compile-999999998-abcdef";
  std::filesystem::create_directories(other_kind);
  const auto same_kind = temp / "evotune-sanitize-999999998-abcdef";
  std::filesystem::create_directories(same_kind);
  {
    const ScratchDir scratch("sanitize");
    EXPECT_EQ(
        scratch.path().filename().string().rfind("evotune-sanitize-" + std::to_string(getpid()) + "-", 0),
        0u);
    EXPECT_FALSE(std::filesystem::exists(same_kind));
    EXPECT_TRUE(std::filesystem::exists(other_kind));
  }
  std::filesystem::remove_all(other_kind);
}

}  // namespace compiler_pch_test
}  // namespace evotune
