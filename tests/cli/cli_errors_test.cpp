// Bad input reaches the user as one clear line and a non-zero exit, and leaves the database as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace {

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("evotune_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Exit code 1 and exactly one line on stderr, starting "evotune: error: " and containing `expected`.
  static void expect_one_line_error(const test::CommandResult& result, const std::string& expected) {
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_EQ(result.err.rfind("evotune: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
  }
  std::filesystem::path dir_;
};

TEST_F(CliErrors, MalformedSpaceFile) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/bad/malformed.json --arch sm_90"),
                        "malformed.json");
}

TEST_F(CliErrors, EmptyValuesNamesTheField) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/bad/empty_values.json"),
                        "ConfigurationSpace.TuningParameters");
}

TEST_F(CliErrors, UnknownNameInACondition) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/bad/unknown_name.json"), "unknown name");
}

TEST_F(CliErrors, MissingTemplateFile) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/bad/missing_kernel_file.json"),
                        "KernelFile");
}

TEST_F(CliErrors, ConstraintsExcludingEverything) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/bad/impossible.json"), "no configuration");
}

TEST_F(CliErrors, UnknownProblemKeyAndNonPositiveSize) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/saxpy.json --problem Q=3"), "Q");
  expect_one_line_error(test::run_evotune("check tests/data/spaces/saxpy.json --problem N=0"), "N");
}

TEST_F(CliErrors, UnknownArch) {
  expect_one_line_error(test::run_evotune("check tests/data/spaces/saxpy.json --arch sm_12"), "sm_12");
}

TEST_F(CliErrors, BestWithoutADatabase) {
  expect_one_line_error(
      test::run_evotune("best tests/data/spaces/saxpy.json --db " + (dir_ / "none.db").string()), "none.db");
}

TEST_F(CliErrors, CorruptDatabaseIsLeftUntouched) {
  const auto db = dir_ / "corrupt.db";
  const std::string garbage(4096, 'x');
  std::ofstream(db) << garbage;
  expect_one_line_error(test::run_evotune("runs --db " + db.string()), "corrupt.db");
  std::ifstream in(db);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, garbage);
}

TEST_F(CliErrors, TuneWithoutAGpuSaysSo) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "this machine has a GPU";
  expect_one_line_error(
      test::run_evotune("tune tests/data/spaces/saxpy.json --db " + (dir_ / "r.db").string()), "needs a GPU");
}

TEST_F(CliErrors, CheckCompilesEveryValidVariantOfTheTestSpace) {
  const auto result = test::run_evotune("check tests/data/spaces/saxpy.json --arch sm_80 --arch sm_90");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("saxpy [sm_80"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("saxpy [sm_90"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(", 0 failed"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace evotune
