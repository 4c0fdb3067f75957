// Bad space files and problems reach the user as one clear line and a non-zero exit, from every command that
// reads them, and leave the results database as it was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cli/cli_error_fixture.hpp"

namespace evotune {
namespace cli_errors_test {

class CliErrors : public test::CliErrorTest {
 protected:
  // `check`, `best`, `export` and `tune` of `space_and_problem` (a space file and its options), each against
  // a results database: every one must fail naming `cause`, changing no file.
  void expect_every_command_refuses(const std::string& space_and_problem, const std::string& cause) const {
    const std::string db = " --db " + make_results_db().string();
    expect_refused("check " + space_and_problem + " --arch sm_90", cause);
    expect_refused("best " + space_and_problem + db, cause);
    expect_refused("best " + space_and_problem + db + " --json --failed", cause);
    expect_refused("export " + space_and_problem + db + " -o " + (dir_ / "out.cu").string(), cause);
    // The space and the problem are read before tune looks for a GPU: the cause shows on any machine.
    expect_refused("tune " + space_and_problem + db, cause);
  }
};

TEST_F(CliErrors, MalformedJson) {
  expect_every_command_refuses("tests/data/spaces/bad/malformed.json", "malformed JSON");
}

TEST_F(CliErrors, ParameterWithNoValues) {
  expect_every_command_refuses("tests/data/spaces/bad/empty_values.json",
                               "ConfigurationSpace.TuningParameters[1].Values: empty list");
}

TEST_F(CliErrors, UnknownNameInAConditionExpression) {
  expect_every_command_refuses("tests/data/spaces/bad/unknown_name.json", "unknown name 'BLOK'");
}

TEST_F(CliErrors, ConditionListingAnUnknownParameter) {
  expect_every_command_refuses("tests/data/spaces/bad/condition_parameter.json",
                               "'ITEM' is not a tuning parameter");
}

TEST_F(CliErrors, MissingTemplateFile) {
  expect_every_command_refuses("tests/data/spaces/bad/missing_kernel_file.json",
                               "KernelFile: file not found");
}

TEST_F(CliErrors, UnknownProblemKey) {
  expect_every_command_refuses(test::kSaxpy + " --problem Q=3", "unknown size 'Q'");
}

TEST_F(CliErrors, NonPositiveSize) {
  expect_every_command_refuses(test::kSaxpy + " --problem N=0", "N=0 is not positive");
  expect_every_command_refuses(test::kSaxpy + " --problem N=-4", "N=-4 is not positive");
}

TEST_F(CliErrors, FlushL2IsOnOrOff) {
  for (const char* command : {"tune ", "remeasure ", "eval tests/data/spaces/saxpy.cu --space "}) {
    const auto result = test::run_evotune(command + test::kSaxpy + " --flush-l2 maybe");
    EXPECT_NE(result.exit_code, 0) << command;
    EXPECT_NE(result.err.find("--flush-l2: maybe not in {on,off}"), std::string::npos) << result.err;
  }
}

// A bad command line is refused as every other input: one line, exit 1, the option and its value named in
// words (not CLI11's range of doubles written out to 1.8e308), and --help still prints the help and exits 0.
TEST_F(CliErrors, BadCommandLinesAreRefusedInOneLine) {
  const std::string db = " --db " + make_results_db().string();
  expect_refused("best " + test::kSaxpy + db + " --top -1", "--top: -1 is not positive");
  expect_refused("best " + test::kSaxpy + db + " --top x", "--top: 'x' is not a number");
  expect_refused("tune " + test::kSaxpy + db + " --budget 0", "--budget: 0 is not positive");
  expect_refused("tune " + test::kSaxpy + db + " --time-limit -5", "--time-limit: -5 is negative");
  expect_refused("eval tests/data/spaces/saxpy.cu --space " + test::kSaxpy + " --warmup-ms -1",
                 "--warmup-ms: -1 is not in 0..60000");
  expect_refused("tune " + test::kSaxpy + db + " --strategy foo", "--strategy: foo not in");
  expect_refused("tune " + test::kSaxpy + db + " --no-such-option", "--no-such-option");
  expect_refused("best " + (dir_ / "none.json").string() + db, "none.json");
  expect_refused("", "A subcommand is required");
  const auto help = test::run_evotune("best --help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage:"), std::string::npos) << help.out;
}

// A problems file's problem that does not resolve is named with the file, before anything is tuned or read.
TEST_F(CliErrors, AProblemsFilesBadProblemNamesTheFile) {
  const auto file = dir_ / "problems.txt";
  std::ofstream(file) << "N=1024\nQ=3\n";
  const std::string db = " --db " + make_results_db().string();
  const std::string cause = "problems file " + file.string() + ", problem 'Q=3': unknown size 'Q'";
  expect_refused("tune " + test::kSaxpy + db + " --problems " + file.string(), cause);
  expect_refused("best " + test::kSaxpy + db + " --problems " + file.string(), cause);
}

TEST_F(CliErrors, MalformedProblem) {
  expect_every_command_refuses(test::kSaxpy + " --problem N=abc", "malformed item 'N=abc'");
}

// Which configs are valid depends on the device, so only check and tune enumerate them; best and export
// list what is stored.
TEST_F(CliErrors, ConstraintsExcludingEveryConfig) {
  const std::string space = "tests/data/spaces/bad/impossible.json";
  expect_refused("check " + space + " --arch sm_90", "no configuration satisfies the conditions");
  expect_tune_refused(space + " --db " + make_results_db().string(),
                      "no configuration satisfies the conditions");
}

TEST_F(CliErrors, UnknownArch) { expect_refused("check " + test::kSaxpy + " --arch sm_12", "sm_12"); }

TEST_F(CliErrors, BestWithoutADatabase) {
  expect_refused("best " + test::kSaxpy + " --db " + (dir_ / "none.db").string(),
                 "no results database there");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "none.db"));
}

TEST_F(CliErrors, EvalRefusesUnknownParamsAndAMissingGpuInOneLine) {
  const std::string kernel = "tests/data/spaces/saxpy.cu";
  expect_refused("eval " + kernel + " --space " + test::kSaxpy + " --params NO_SUCH=1", "--params");
  expect_refused("eval " + kernel + " --space " + test::kSaxpy + " --problem NO_SUCH=1", "NO_SUCH");
  if (cuda::device_count() > 0) return;
  expect_refused("eval " + kernel + " --space " + test::kSaxpy, "evotune eval needs a GPU");
  expect_refused("eval " + kernel + " --space " + test::kSaxpy + " --json", "evotune eval needs a GPU");
}

// `evotune sanitize` refuses, in one line and changing no file: a config the database does not hold, a tool
// it does not know, and (on a machine without one) the missing GPU; `tune --sanitize-top` with a replay.
TEST_F(CliErrors, SanitizeRefusesInOneLine) {
  const std::string db = " --db " + make_results_db().string();
  expect_refused("sanitize " + test::kSaxpy + db + " --config 99", "no config 99");
  expect_refused("sanitize " + test::kSaxpy + db + " --config 1 --tools memcheck,leakcheck",
                 "--tools: unknown tool 'leakcheck'");
  expect_refused("sanitize " + test::kSaxpy + " --db " + (dir_ / "none.db").string() + " --config 1",
                 "no results database there");
  expect_refused("tune " + test::kSaxpy + db +
                     " --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json"
                     " --sanitize-top 1",
                 "--sanitize-top needs a GPU run");
  if (cuda::device_count() > 0) return;
  expect_refused("sanitize " + test::kSaxpy + db + " --config 1", "evotune sanitize needs a GPU");
}

// --objective energy|edp and --energy read the GPU's energy counter through NVML: refused in one line with a
// replay (a recorded sweep holds no energy) and where NVML cannot be loaded, before anything is written.
TEST_F(CliErrors, EnergyNeedsAGpuRunAndNvml) {
  const std::string db = " --db " + (dir_ / "r.db").string();
  const std::string replay = " --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json";
  expect_refused("tune " + test::kSaxpy + db + replay + " --objective energy",
                 "--objective energy needs a GPU run: recorded sweeps hold no energy");
  expect_refused("tune " + test::kSaxpy + db + replay + " --energy", "--energy needs a GPU run");
  const auto unknown = test::run_evotune("tune " + test::kSaxpy + db + " --objective power");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--objective: power not in {time,energy,edp}"), std::string::npos)
      << unknown.err;
  ::setenv("EVOTUNE_NVML_LIBRARY", (dir_ / "no-such-libnvidia-ml.so.1").c_str(), 1);
  expect_refused("tune " + test::kSaxpy + db + " --objective edp",
                 "--objective edp reads the GPU's energy counter through NVML, which is not available");
  ::unsetenv("EVOTUNE_NVML_LIBRARY");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.db"));
}

TEST_F(CliErrors, TuneWithoutAGpuSaysSo) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "this machine has a GPU";
  expect_refused("tune " + test::kSaxpy + " --db " + (dir_ / "r.db").string(), "needs a GPU");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.db"));
}

TEST_F(CliErrors, CheckCompilesEveryValidVariantOfTheTestSpace) {
  const auto result = test::run_evotune("check tests/data/spaces/saxpy.json --arch sm_80 --arch sm_90");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("saxpy [sm_80"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("saxpy [sm_90"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(", 0 failed"), std::string::npos) << result.out;
}

// The fault space's variants that do not compile (FAULT 2, and FAULT 19's device-side launch) are reported
// with their compiler errors, and check fails: a config the conditions allow must compile. The other 21
// compile.
TEST_F(CliErrors, CheckReportsTheFaultSpacesCompileError) {
  const auto result = test::run_evotune("check tests/data/spaces/faults.json --arch sm_90");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(
      result.out.find(
          "faults [sm_90, N=1048576]: 23 of 42 configs valid, 23 of them checked, 21 compiled, 2 failed"),
      std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  compile_error {\"BLOCK\":256,\"FAULT\":2,\"VEC\":1}: "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("cannot be used to initialize an entity of type \"float *\""), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  compile_error {\"BLOCK\":256,\"FAULT\":19,\"VEC\":1}: "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("device-side kernel launch"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("evotune: error: 1 check(s) failed"), std::string::npos) << result.err;
}

// Serialised wgmmas are listed with ptxas's reason; with --no-serialized-wgmma they fail the check (exit 1,
// one line saying why), and a space without them passes.
TEST_F(CliErrors, CheckFailsOnSerialisedWgmmasWhenAsked) {
  const std::string space =
      "check tests/data/spaces/wgmma_serialized.json --arch sm_90 --problem READ_EARLY=";
  const auto listed = test::run_evotune(space + "1");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(
      listed.out.find("  wgmma serialized (ptxas C7514: due to non wgmma instructions reading accumulator "
                      "registers of a wgmma between start and end of the pipeline stage): {\"UNUSED\":0}"),
      std::string::npos)
      << listed.out;
  const auto strict = test::run_evotune(space + "1 --no-serialized-wgmma");
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  EXPECT_NE(strict.err.find(
                "evotune: error: 1 check(s) failed: a config the conditions allow must compile, with its "
                "wgmmas not serialised (--no-serialized-wgmma)"),
            std::string::npos)
      << strict.err;
  const auto waited = test::run_evotune(space + "0 --no-serialized-wgmma");
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(waited.out.find("wgmma serialized"), std::string::npos) << waited.out;
}

}  // namespace cli_errors_test
}  // namespace evotune
