// `evotune profile` refuses in one line, changing no file, what it can tell without profiling: a config the
// database does not hold, a --kernel no launch of the space runs (the reference among them), an ncu that is
// not there, and on a machine without a GPU the missing GPU (as `evotune eval` says it).
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_error_fixture.hpp"

namespace evotune {
namespace profile_command_errors_test {

class ProfileErrors : public test::CliErrorTest {
 protected:
  // A stand-in ncu that must never run: it would leave a file behind.
  std::string fake_ncu() const {
    const auto file = dir_ / "ncu";
    std::ofstream(file) << "#!/bin/sh\ntouch \"$(dirname \"$0\")/ncu_ran\"\n";
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
    return file.string();
  }
};

TEST_F(ProfileErrors, RefusesBeforeProfiling) {
  const std::string db = " --db " + make_results_db().string();
  const std::string ncu = " --ncu " + fake_ncu();
  expect_refused("profile " + test::kSaxpy + db + " --config 99" + ncu, "no config 99");
  expect_refused("profile " + test::kSaxpy + db + " --config 1 --kernel saxpy_ref" + ncu,
                 "--kernel saxpy_ref: no launch of saxpy runs it (its kernels: saxpy)");
  expect_refused("profile " + test::kSaxpy + db + " --config 1 --ncu /nonexistent/ncu",
                 "ncu not found: /nonexistent/ncu is not an executable file");
  for (const char* option : {" --set everything", " --launch 0"}) {
    const auto result = test::run_evotune("profile " + test::kSaxpy + db + " --config 1" + ncu + option);
    EXPECT_NE(result.exit_code, 0) << option;
    EXPECT_NE(result.err.find(std::string(option).substr(1, 5)), std::string::npos) << result.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "ncu_ran"));
  }
  if (cuda::device_count() == 0)
    expect_refused("profile " + test::kSaxpy + db + " --config 1" + ncu, "evotune profile needs a GPU: ");
}

}  // namespace profile_command_errors_test
}  // namespace evotune
