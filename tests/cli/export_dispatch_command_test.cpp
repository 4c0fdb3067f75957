// `evotune export --dispatch` and `--torch`: on the wgmma space's recorded H100 sweeps (replayed into a
// database) a file nvcc compiles for sm_90a; the op's files; one-line refusals for what cannot be exported.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cli/cli_error_fixture.hpp"
#include "support/nvcc.hpp"

namespace evotune::test {
namespace export_dispatch_command_test {

const std::string kWgmma = "search_spaces/flash_attn_fwd_wgmma.json";
const std::vector<std::string> kSweeps{"B_1_H_8_S_512_D_64",  "B_1_H_8_S_1024_D_64", "B_1_H_8_S_2048_D_64",
                                       "B_1_H_8_S_4096_D_64", "B_2_H_8_S_1000_D_64", "B_4_H_8_S_1024_D_64",
                                       "B_8_H_8_S_512_D_64",  "B_2_H_16_S_2048_D_64"};

class ExportDispatchCommand : public CliErrorTest {
 protected:
  // The eight recorded problems tuned from their sweeps (exhaustive replays, no GPU).
  std::filesystem::path make_wgmma_db() const {
    const auto db = dir_ / "wgmma.db";
    std::string problems, replays;
    for (const auto& name : kSweeps) {
      std::string text = name;
      for (std::size_t at = 0; (at = text.find('_', at)) != std::string::npos;)
        text[at] = (text[at - 1] >= '0' && text[at - 1] <= '9') ? ',' : '=';
      problems += (problems.empty() ? "" : ", ") + ("\"" + text + "\"");
      replays += " --replay tests/data/sweeps/wgmma_h100_" + name + ".json";
    }
    std::ofstream(dir_ / "problems.json") << "[" << problems << "]\n";
    const auto tuned = run_evotune("tune " + kWgmma + " --problems " + (dir_ / "problems.json").string() +
                                   " --strategy exhaustive --rerank 0" + replays + " --db " + db.string());
    EXPECT_EQ(tuned.exit_code, 0) << tuned.err;
    return db;
  }
};

TEST_F(ExportDispatchCommand, RecordedSweepsExportOneFileThatCompilesForSm90a) {
  const auto db = make_wgmma_db();
  const auto file = dir_ / "dispatch.cu";
  const auto result =
      run_evotune("export " + kWgmma + " --dispatch -o " + file.string() + " --db " + db.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("for 8 tuned problems"), std::string::npos) << result.out;
  const std::string text = read(file);
  for (const auto* part :
       {"extern \"C\" int flash_attn_fwd_wgmma_dispatch(const half* Q, const half* K, "
        "const half* V, half* O, float* LSE, long long size_B",
        "extern \"C\" int flash_attn_fwd_wgmma_pick(", "flash_attn_fwd_wgmma_error_string(",
        "// tuned:   B=8,CAUSAL=0,D=64,H=8,HKV=8,S=512,SKV=512 -> "})
    EXPECT_NE(text.find(part), std::string::npos) << part;
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  // PTX only (no ptxas): the whole file through the front end for sm_90a, in a fraction of a full build.
  const auto log = dir_ / "nvcc.log";
  const std::string build = nvcc() + " -gencode arch=compute_90a,code=compute_90a -std=c++17 -c " +
                            file.string() + " -o " + (dir_ / "dispatch.o").string() + " >" + log.string() +
                            " 2>&1";
  EXPECT_EQ(std::system(build.c_str()), 0) << read(log);
}

TEST_F(ExportDispatchCommand, TorchWritesTheOpsFiles) {
  const auto db = make_wgmma_db();
  const auto folder = dir_ / "op";
  const auto result =
      run_evotune("export " + kWgmma + " --torch " + folder.string() + " --db " + db.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* name :
       {"flash_attn_fwd_wgmma_dispatch.cu", "torch_op_checks.hpp", "torch_op_checks_attention.hpp",
        "binding.cpp", "load.py", "build_so.sh", "README.md"})
    EXPECT_TRUE(std::filesystem::exists(folder / name)) << name;
  const auto permissions = std::filesystem::status(folder / "build_so.sh").permissions();
  EXPECT_NE(permissions & std::filesystem::perms::owner_exec, std::filesystem::perms::none);
}

TEST_F(ExportDispatchCommand, ASingleTunedProblemCompilesAndRunsItsPick) {
  const auto db = make_results_db();
  const auto file = dir_ / "saxpy.cu";
  const auto result =
      run_evotune("export " + kSaxpy + " --dispatch -o " + file.string() + " --db " + db.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("1 variants for 1 tuned problems"), std::string::npos) << result.out;
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  std::ofstream(file, std::ios::app) << "\n#include <cstdio>\nint main() {\n"
                                        "  std::printf(\"%d %d %d\\n\", saxpy_pick(4096, 4, nullptr), "
                                        "saxpy_pick(100000, 4, nullptr), saxpy_pick(4096, 1, nullptr));\n}\n";
  const auto binary = dir_ / "saxpy";
  const auto log = dir_ / "nvcc.log";
  ASSERT_EQ(std::system((nvcc() + " -arch=sm_90 -std=c++17 " + file.string() + " -o " + binary.string() +
                         " >" + log.string() + " 2>&1")
                            .c_str()),
            0)
      << read(log);
  const auto picks = dir_ / "picks.txt";
  ASSERT_EQ(std::system((binary.string() + " > " + picks.string()).c_str()), 0);
  EXPECT_EQ(read(picks), "0 0 -1\n");
}

TEST_F(ExportDispatchCommand, WhatCannotBeExportedIsRefusedInOneLine) {
  const auto db = make_results_db();
  expect_refused("export " + kWgmma + " --dispatch -o " + (dir_ / "x.cu").string() + " --db " + db.string(),
                 "no results for flash_attn_fwd_wgmma");
  expect_refused("export " + kSaxpy + " --dispatch --db " + db.string(),
                 "export --dispatch needs -o FILE.cu");
  expect_refused(
      "export " + kSaxpy + " --dispatch -o " + (dir_ / "missing" / "x.cu").string() + " --db " + db.string(),
      "cannot write " + (dir_ / "missing" / "x.cu").string());
  expect_refused(
      "export " + kSaxpy + " --dispatch --config 1 -o " + (dir_ / "x.cu").string() + " --db " + db.string(),
      "drop --config and --problem");
  expect_refused(
      "export " + kSaxpy + " --torch " + (dir_ / "op").string() + " --db " + db.string(),
      "--torch exports attention or attention_backward or gemm or decode spaces only, and saxpy is "
      "none of them");
  expect_refused("export " + kSaxpy + " --dispatch -o " + (dir_ / "x.cu").string() + " --db " +
                     (dir_ / "none.db").string(),
                 "none.db");
}

}  // namespace export_dispatch_command_test
}  // namespace evotune::test
