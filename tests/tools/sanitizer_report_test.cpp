// Reading compute-sanitizer logs (in the format its --log-file writes) and the command that runs a tool.
#include "tools/sanitizer_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tools/sanitize_variant.hpp"

namespace evotune {
namespace sanitizer_report_test {

const char* kMemcheckLog = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at faults+0x1b0 in faults.cu:80
=========     by thread (32,0,0) in block (7,0,0)
=========     Address 0x12345678 is out of bounds
=========     and is 8,589,934,592 bytes after the nearest allocation at 0x7f0000000000 of size 4,194,816 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified launch failure" on CUDA API call to cuEventQuery.
=========
========= ERROR SUMMARY: 2 errors
)";

const char* kRacecheckLog = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at faults+0x2c0 in faults.cu:147
=========     and Read access at faults+0x310 in faults.cu:151 [1024 hazards]
=========
========= Warning: Race reported between Read access at faults+0x400 in faults.cu:150
=========     and Write access at faults+0x410 in faults.cu:150 [32 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
)";

TEST(SanitizerReport, MemcheckFindingIsItsFirstBlock) {
  const SanitizerFinding finding = parse_sanitizer_log("memcheck", kMemcheckLog);
  EXPECT_EQ(finding.tool, "memcheck");
  EXPECT_EQ(finding.verdict, "findings");
  EXPECT_EQ(finding.errors, 2);
  EXPECT_EQ(finding.warnings, 0);
  EXPECT_EQ(
      finding.summary,
      "Invalid __global__ write of size 4 bytes / at faults+0x1b0 in faults.cu:80 / by thread (32,0,0) in "
      "block (7,0,0) / Address 0x12345678 is out of bounds");
  EXPECT_EQ(finding.report.find("========="), std::string::npos) << finding.report;
  EXPECT_NE(finding.report.find("ERROR SUMMARY: 2 errors"), std::string::npos);
}

TEST(SanitizerReport, RacecheckCountsErrorsAndWarnings) {
  const SanitizerFinding finding = parse_sanitizer_log("racecheck", kRacecheckLog);
  EXPECT_EQ(finding.verdict, "findings");
  EXPECT_EQ(finding.errors, 1);
  EXPECT_EQ(finding.warnings, 1);
  EXPECT_EQ(finding.summary,
            "Error: Race reported between Write access at faults+0x2c0 in faults.cu:147 / and Read access at "
            "faults+0x310 in faults.cu:151 [1024 hazards]");
}

TEST(SanitizerReport, CleanRunsAndRunsWithoutASummary) {
  const SanitizerFinding clean =
      parse_sanitizer_log("synccheck", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_EQ(clean.verdict, "clean");
  EXPECT_EQ(clean.errors, 0);
  EXPECT_EQ(clean.summary, "");
  const SanitizerFinding no_race =
      parse_sanitizer_log("racecheck",
                          "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 "
                          "errors, 0 warnings)\n");
  EXPECT_EQ(no_race.verdict, "clean");

  const SanitizerFinding cut = parse_sanitizer_log(
      "initcheck",
      "========= COMPUTE-SANITIZER\n========= Uninitialized __global__ memory read of size 4 bytes\n");
  EXPECT_EQ(cut.verdict, "failed");
  EXPECT_EQ(cut.summary, "Uninitialized __global__ memory read of size 4 bytes");
  EXPECT_EQ(parse_sanitizer_log("memcheck", "").summary,
            "compute-sanitizer wrote no summary (it did not finish)");
}

TEST(SanitizerReport, KnowsTheFourTools) {
  for (const char* tool : kSanitizerTools) EXPECT_TRUE(is_sanitizer_tool(tool)) << tool;
  EXPECT_FALSE(is_sanitizer_tool("leakcheck"));
  EXPECT_FALSE(is_sanitizer_tool(""));
}

TEST(SanitizerCommand, RunsEvotuneEvalOnceUnderTheToolWithLongLimits) {
  SanitizeRequest request;
  request.space_file = "tests/data/spaces/faults.json";
  request.problem = "N=4096";
  request.params = {{"FAULT", 17}, {"VEC", 1}};
  request.device = 1;
  request.evotune = "/opt/evotune";
  const auto command = sanitizer_command("/cuda/bin/compute-sanitizer", "racecheck", "/tmp/s/racecheck.log",
                                         request, "tests/data/spaces/faults.cu");
  const auto has = [&](const std::string& a, const std::string& b) {
    const auto at = std::find(command.begin(), command.end(), a);
    return at != command.end() && at + 1 != command.end() && *(at + 1) == b;
  };
  EXPECT_EQ(command.front(), "/cuda/bin/compute-sanitizer");
  EXPECT_TRUE(has("--tool", "racecheck"));
  EXPECT_TRUE(has("--target-processes", "all")) << "the kernel runs in evotune's worker process";
  EXPECT_TRUE(has("--log-file", "/tmp/s/racecheck.log"));
  EXPECT_TRUE(has("/opt/evotune", "eval"));
  EXPECT_TRUE(has("eval", "tests/data/spaces/faults.cu"));
  EXPECT_TRUE(has("--space", "tests/data/spaces/faults.json"));
  EXPECT_TRUE(has("--params", "FAULT=17,VEC=1"));
  EXPECT_TRUE(has("--problem", "N=4096"));
  EXPECT_TRUE(has("--device", "1"));
  EXPECT_TRUE(has("--validation-rounds", "1"));
  EXPECT_TRUE(has("--warmup", "0"));
  EXPECT_TRUE(has("--reps", "1"));
  EXPECT_TRUE(has("--timing", "single"));  // one launch under the tool, not a graph of several
  EXPECT_TRUE(has("--timeout-ms", "300000"));
  EXPECT_EQ(command.back(), "N=4096");
  // No guard margins inside the buffers' allocations: memcheck would count a write into one as valid.
  EXPECT_NE(std::find(command.begin(), command.end(), "--exact-buffers"), command.end());
  EXPECT_EQ(std::find(command.begin(), command.end(), "--padding"), command.end()) << "a memcheck option";
  const auto memcheck = sanitizer_command("/cuda/bin/compute-sanitizer", "memcheck", "/tmp/s/memcheck.log",
                                          request, "tests/data/spaces/faults.cu");
  const auto padding = std::find(memcheck.begin(), memcheck.end(), "--padding");
  ASSERT_NE(padding, memcheck.end());
  EXPECT_LT(padding - memcheck.begin(),
            std::find(memcheck.begin(), memcheck.end(), "/opt/evotune") - memcheck.begin())
      << "compute-sanitizer's own option, before the program";
}

// The write one float past `out` (the fault space's FAULT 13) is named by its buffer, from the allocations
// the worker logged; an address that is none of them, or a finding without one, is left as it was.
TEST(SanitizerReport, OutOfBoundsWriteIsNamedByItsBuffer) {
  const char* log = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at faults+0x1b0 in faults.cu:130
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000400000 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f0000000000 of size 4,194,304 bytes
=========
========= ERROR SUMMARY: 1 error
)";
  const std::vector<BufferAllocation> allocations{{"x", "input", 0x7e0000000000, 4194304},
                                                  {"out", "reference", 0x7e8000000000, 4194304},
                                                  {"out", "variant", 0x7f0000000000, 4194304}};
  SanitizerFinding finding = parse_sanitizer_log("memcheck", log);
  name_the_buffer(finding, allocations);
  EXPECT_EQ(
      finding.summary,
      "Invalid __global__ write of size 4 bytes / at faults+0x1b0 in faults.cu:130 / by thread (0,0,0) in "
      "block (0,0,0) / Address 0x7f0000400000 is out of bounds / buffer 'out' (variant): 1 bytes after its "
      "end, of 4194304 bytes");

  SanitizerFinding elsewhere = parse_sanitizer_log("memcheck", log);
  const std::string before = elsewhere.summary;
  name_the_buffer(elsewhere, {{"x", "input", 0x1000, 64}});
  EXPECT_EQ(elsewhere.summary, before);
  SanitizerFinding wild = parse_sanitizer_log("memcheck", kMemcheckLog);
  const std::string wild_before = wild.summary;
  name_the_buffer(wild, {});
  EXPECT_EQ(wild.summary, wild_before);
}

}  // namespace sanitizer_report_test
}  // namespace evotune
