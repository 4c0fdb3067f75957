// `evotune export SPACE... --torch DIR`: one op over the GEMM space and its bf16 twin, each tuned from a
// synthetic sweep of the space's Seeds (replayed, no GPU) into a database of its own; the two dispatchers
// link into one library whose picks answer for each dtype (nvcc, PTX only); one-line refusals.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_error_fixture.hpp"
#include "space/search_space.hpp"
#include "support/nvcc.hpp"

namespace evotune::test {
namespace export_torch_command_test {

const std::string kGemm = "search_spaces/gemm_wgmma.json";
const std::string kGemmBf16 = "search_spaces/gemm_wgmma_bf16.json";
const std::string kProblem = "M=256,N=256,K=512,B_KMAJOR=0,BIAS=0,ACT=0";
const std::string kLinearProblem = "M=256,N=256,K=512,B_KMAJOR=1,BIAS=1,ACT=0";

class ExportTorchCommand : public CliErrorTest {
 protected:
  // A sweep of `space`'s Seeds at `problem` ("M=256,..."), each ok, the first fastest.
  std::filesystem::path seed_sweep(const std::string& space, const std::string& problem) const {
    const auto file = nlohmann::json::parse(SearchSpace::load(space).json_text());  // Extends resolved
    nlohmann::json sizes = nlohmann::json::object();
    for (std::size_t at = 0; at < problem.size();) {
      const auto comma = std::min(problem.find(',', at), problem.size());
      const std::string pair = problem.substr(at, comma - at);
      sizes[pair.substr(0, pair.find('='))] = std::stoll(pair.substr(pair.find('=') + 1));
      at = comma + 1;
    }
    nlohmann::json results = nlohmann::json::array();
    double us = 10;
    for (auto params : file.at("Seeds")) {
      params.erase("Problem");  // the problem a Seed was found for is not a parameter
      const nlohmann::json timing{{"median_us", us}, {"min_us", us}, {"mean_us", us}, {"stddev_us", 0},
                                  {"p20_us", us},    {"p80_us", us}, {"samples", 30}};
      results.push_back({{"params", params}, {"status", "ok"}, {"timing", timing}});
      us += 1;
    }
    const nlohmann::json device{{"name", "NVIDIA H100 80GB HBM3"},
                                {"arch", "sm_90"},
                                {"cc_major", 9},
                                {"cc_minor", 0},
                                {"driver_version", 13000},
                                {"sm_count", 132},
                                {"l2_bytes", 52428800},
                                {"max_smem_per_block", 232448}};
    const nlohmann::json sweep{{"format", "evotune-sweep-v1"},
                               {"space", file.at("Name")},
                               {"space_hash", "x"},
                               {"problem", sizes},
                               {"device", device},
                               {"nvrtc_version", "13.0"},
                               {"results", results}};
    const auto path = dir_ / (file.at("Name").get<std::string>() + "_" +
                              std::to_string(sizes.at("B_KMAJOR").get<int>()) + ".json");
    std::ofstream(path) << sweep.dump();
    return path;
  }

  // `space` tuned at the plain and the F.linear-shaped problem (3 configs each) into `db`.
  void tune(const std::string& space, const std::filesystem::path& db) const {
    for (const auto& problem : {kProblem, kLinearProblem}) {
      const auto result = run_evotune("tune " + space + " --problem " + problem +
                                      " --strategy evolve --budget 3 --seed 1 --rerank 0 --replay " +
                                      seed_sweep(space, problem).string() + " --db " + db.string());
      ASSERT_EQ(result.exit_code, 0) << result.err;
    }
  }
};

TEST_F(ExportTorchCommand, TheGemmSpaceAndItsBf16TwinMakeOneOp) {
  const auto fp16_db = dir_ / "fp16.db", bf16_db = dir_ / "bf16.db";
  tune(kGemm, fp16_db);
  tune(kGemmBf16, bf16_db);
  const auto folder = dir_ / "op";
  const auto result = run_evotune("export " + kGemm + " " + kGemmBf16 + " --torch " + folder.string() +
                                  " --name mm --db " + fp16_db.string() + " --db " + bf16_db.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Each with two covers: configs measured beside the winners for sizes next to the tuned ones where no
  // winner runs (N = 257, no multiple of 8, refuses the winners' TMA epilogue).
  EXPECT_NE(
      result.out.find("the gemm op evotune::mm (gemm_wgmma: 4 variants for 2 tuned problems with 2 covers, "
                      "gemm_wgmma_bf16: 4 variants for 2 tuned problems with 2 covers)"),
      std::string::npos)
      << result.out;
  for (const char* name : {"gemm_wgmma_dispatch.cu", "gemm_wgmma_bf16_dispatch.cu", "torch_op_checks.hpp",
                           "torch_op_checks_gemm.hpp", "binding.cpp", "load.py", "build_so.sh", "README.md"})
    EXPECT_TRUE(std::filesystem::exists(folder / name)) << name;
  EXPECT_NE(read(folder / "binding.cpp")
                .find("m.def(\"mm(Tensor a, Tensor b, Tensor? bias=None, bool "
                      "b_kmajor=False) -> Tensor\")"),
            std::string::npos);
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  // Both dispatchers and the checks' C entry points in one program (PTX only: no ptxas, no GPU), asking each
  // dtype's pick: the tuned problems, an untuned M, an untuned compile-time size (ACT = 1), and N = 257 (a
  // cover).
  std::ofstream(folder / "main.cpp")
      << "#define EVOTUNE_CHECKS_C_API\n#include \"torch_op_checks_gemm.hpp\"\n#include <cstdio>\n"
         "extern \"C\" int gemm_wgmma_pick(long long, long long, long long, long long, long long, long long, "
         "int*);\n"
         "extern \"C\" int gemm_wgmma_bf16_pick(long long, long long, long long, long long, long long, long "
         "long, "
         "int*);\n"
         "int main() {\n"
         "  std::printf(\"%d %d %d %d\\n\", gemm_wgmma_pick(256, 256, 512, 0, 0, 0, nullptr), "
         "gemm_wgmma_bf16_pick(256, 256, 512, 1, 1, 0, nullptr), gemm_wgmma_pick(77, 256, 512, 1, 1, 0, "
         "nullptr), "
         "gemm_wgmma_bf16_pick(256, 256, 512, 0, 0, 1, nullptr));\n"
         "  int rule = -1;\n"
         "  const int covered = gemm_wgmma_pick(256, 257, 512, 0, 0, 0, &rule);\n"
         "  std::printf(\"%d %d\\n\", covered, rule);\n}\n";
  const auto binary = dir_ / "picks";
  const auto log = dir_ / "nvcc.log";
  const std::string build = "cd " + folder.string() + " && " + nvcc() +
                            " -gencode arch=compute_90a,code=compute_90a -std=c++17 gemm_wgmma_dispatch.cu "
                            "gemm_wgmma_bf16_dispatch.cu main.cpp -o " +
                            binary.string() + " >" + log.string() + " 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << read(log);
  const auto picks = dir_ / "picks.txt";
  ASSERT_EQ(std::system((binary.string() + " > " + picks.string()).c_str()), 0);
  const std::string text = read(picks);
  EXPECT_EQ(text.substr(0, 4), "0 1 ") << text;  // each space's first variant is its plain problem's winner
  EXPECT_NE(text.substr(4, 2), "-1") << text;    // M = 77: the nearest tuned problem's winner
  const auto second_line = text.find('\n') + 1;
  EXPECT_EQ(text.substr(second_line - 3, 3), "-1\n") << text;
  EXPECT_EQ(text.substr(second_line), "2 2\n") << text << "N = 257: the first cover, by the default rule";
}

TEST_F(ExportTorchCommand, WhatCannotMakeOneOpIsRefusedInOneLine) {
  const auto db = make_results_db();
  const std::string op = " --torch " + (dir_ / "op").string();
  expect_refused("export " + kGemm + " " + kGemm + op + " --db " + db.string(),
                 "--torch takes one space a dtype: two are float16");
  expect_refused(
      "export " + kGemm + " search_spaces/flash_attn_fwd_wgmma_bf16.json" + op + " --db " + db.string(),
      "--torch makes one op of spaces of one family: gemm_wgmma is gemm, flash_attn_fwd_wgmma_bf16 is "
      "attention");
  expect_refused("export " + kGemm + " " + kGemmBf16 + op + " --db " + db.string() + " --db " + db.string() +
                     " --db " + db.string(),
                 "--torch reads one --db for every space, or one --db a space (2 spaces, 3 --db)");
  expect_refused("export " + kGemm + op + " --name 9lives --db " + db.string(),
                 "--name 9lives is not a C identifier");
  expect_refused("export " + kGemm + op + " -o x.cu --db " + db.string(), "--torch writes a folder: drop -o");
  expect_refused("export " + kGemm + " " + kGemmBf16 + " --dispatch -o x.cu --db " + db.string(),
                 "export takes one space (several only with --torch");
  expect_refused("export " + kGemm + op + " --db " + db.string(), "no results for gemm_wgmma");
}

}  // namespace export_torch_command_test
}  // namespace evotune::test
