// `evotune runs` and `evotune show` print the compile service figures and NVRTC's phase times.
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace runs_show_command_test {

using store_test::ok_outcome;
using store_test::StoreTest;

TEST_F(StoreTest, RunsShowsTheCompileFiguresWhenSaved) {
  store.save_compile_stats(run_id, store_test::sweep_compile_stats());
  store.begin_run({space_id, problem_id, device_id, "random", 8, 10, "evotune tune"});  // none saved

  const auto result = test::run_evotune("runs --db '" + database.location() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(
      result.out.find("compile: 1968 compiles on 16 compilers, busy 2400.0 s, idle 100.0 s (4.0%), queue "
                      "wait 12.5 s, mean queue 0.4 (max 16)"),
      std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("compile:"), result.out.rfind("compile:")) << result.out;  // one run has them
}

TEST_F(StoreTest, ShowPrintsThePhaseTimesOfTheCompile) {
  CompileInfo info;
  info.arch = "sm_90";
  info.registers = 96;
  info.phases = CompilePhases{47, 110, 108};
  const auto timed = store.put_compile({"a", "sm_90", "13.0", ""}, Status::ok, "", info, "bin");
  info.phases.reset();
  const auto untimed = store.put_compile({"b", "sm_90", "13.0", ""}, Status::ok, "", info, "bin");
  const auto first = config(64);
  const auto second = config(128);
  measure(first, ok_outcome(10), device_id, timed);
  measure(second, ok_outcome(11), device_id, untimed);

  const std::string db = " --db '" + database.location() + "'";
  const auto shown = test::run_evotune("show " + std::to_string(first) + db);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("(NVRTC: front end 47 ms, NVVM 110 ms, ptxas 108 ms)"), std::string::npos)
      << shown.out;
  const auto old = test::run_evotune("show " + std::to_string(second) + db);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find("96 registers"), std::string::npos) << old.out;
  EXPECT_EQ(old.out.find("NVRTC:"), std::string::npos) << old.out;
}

}  // namespace runs_show_command_test
}  // namespace evotune
