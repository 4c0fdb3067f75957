// evotune's builtin kernels compile with NVRTC alone (no GPU needed) for the architectures the tuner targets.
#include "eval/builtin_kernels.hpp"

#include <gtest/gtest.h>

#include "compile/compiler.hpp"
#include "core/error.hpp"

namespace evotune {
namespace builtin_kernels_test {

TEST(BuiltinKernels, CompileToACubinForEachArch) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    const std::string cubin = compile_builtin_kernels(cuda_include_dirs(), arch);
    ASSERT_GE(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4),
              "\x7f"
              "ELF");
  }
}

// Expects compile_builtin_kernels to throw one line that holds `part`.
void expect_error(const std::vector<std::string>& include_dirs, const std::string& arch,
                  const std::string& part) {
  try {
    compile_builtin_kernels(include_dirs, arch);
    ADD_FAILURE() << "compiled for " << arch;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot compile evotune's builtin kernels for " + arch + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(BuiltinKernels, AnUnknownArchOrMissingHeadersAreOneLineErrors) {
  expect_error(cuda_include_dirs(), "sm_1", "--gpu-architecture");
  expect_error({}, "sm_90", "cuda_fp16.h");
}

}  // namespace builtin_kernels_test
}  // namespace evotune
