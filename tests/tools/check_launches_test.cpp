// `evotune check` of a space of several launches: every launch's kernel must be in the compiled module.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/space_fixture.hpp"
#include "tools/check_space.hpp"

namespace evotune {
namespace check_launches_test {

using testing::kSpaces;

TEST(CheckLaunches, EveryConfigOfTheRowSumSpaceCompiles) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const CheckReport report = check_space(kSpaces / "row_sum.json", "", arch, 2, 0);
    EXPECT_EQ(report.valid_configs, 9) << arch;
    EXPECT_EQ(report.compiled, 9) << arch;
    EXPECT_TRUE(report.failures.empty()) << arch << ": " << report.failures.front().message;
  }
}

TEST(CheckLaunches, ALaunchOfAKernelTheModuleLacksFails) {
  testing::TempSpaces spaces;
  const auto path = spaces.write_from("row_sum", [](auto& json) {
    json["KernelSpecification"]["Launches"][2]["KernelName"] = "row_sum_merge";
  });
  const CheckReport report = check_space(path, "", "sm_90", 2, 0);
  EXPECT_EQ(report.compiled, 3);  // SPLITS = 1 runs row_sum alone
  ASSERT_EQ(report.failures.size(), 6u);
  EXPECT_EQ(report.failures[0].status, Status::launch_error);
  EXPECT_EQ(report.failures[0].message,
            "a launch names kernel 'row_sum_merge', which the compiled module lacks");
  EXPECT_EQ(report.failures[0].config.at("SPLITS"), 2);
}

}  // namespace check_launches_test
}  // namespace evotune
