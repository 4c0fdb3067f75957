// run_captured: output in files, the exit status, and a limit that ends the command and what it started.
#include "ipc/captured_run.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"

namespace evotune {
namespace captured_run_test {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CapturedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("evotune_captured_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(CapturedRunTest, WritesStdoutAndStderrAndKeepsTheExitCode) {
  const CapturedRun run = run_captured({"sh", "-c", "echo out; echo err >&2; exit 3"}, dir_ / "o", dir_ / "e",
                                       std::chrono::seconds(10));
  EXPECT_FALSE(run.timed_out);
  ASSERT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(WEXITSTATUS(run.wait_status), 3);
  EXPECT_EQ(read(dir_ / "o"), "out\n");
  EXPECT_EQ(read(dir_ / "e"), "err\n");
}

TEST_F(CapturedRunTest, TheLimitKillsTheCommandAndItsChildren) {
  const auto marker = dir_ / "child-survived";
  const auto start = std::chrono::steady_clock::now();
  const CapturedRun run = run_captured({"sh", "-c", "(sleep 1; touch " + marker.string() + ") & sleep 30"},
                                       dir_ / "o", dir_ / "e", std::chrono::milliseconds(200));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(run.timed_out);
  EXPECT_LT(seconds, 5);
  EXPECT_TRUE(WIFSIGNALED(run.wait_status));
  ::sleep(2);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the background child outlived the limit";
}

TEST_F(CapturedRunTest, AMissingProgramExits127AndAnUnwritableOutputThrows) {
  const CapturedRun run =
      run_captured({"/nonexistent/program"}, dir_ / "o", dir_ / "e", std::chrono::seconds(5));
  ASSERT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(WEXITSTATUS(run.wait_status), 127);
  EXPECT_THROW(run_captured({"true"}, dir_ / "missing" / "o", dir_ / "e", std::chrono::seconds(5)), Error);
}

}  // namespace captured_run_test
}  // namespace evotune
