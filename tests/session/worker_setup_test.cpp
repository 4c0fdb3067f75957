// The GPU workers' set-up for a space's extra problems, and the job deadline's count of extra rounds.
#include "session/worker_setup.hpp"

#include <gtest/gtest.h>

#include "core/known_devices.hpp"

namespace evotune {
namespace worker_setup_test {

TEST(WorkerSetup, ExtraProblemsCarryTheirBuffersAndBothLaunches) {
  const SearchSpace space = SearchSpace::load("search_spaces/flash_attn_fwd_mma.json");
  const Sizes sizes = space.resolve_problem("B=2,H=4,S=512,D=64");
  const DeviceInfo device = offline_device("sm_90");
  const auto problems = extra_problem_setups(space, sizes, device);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].label, "S=513");
  ASSERT_EQ(problems[0].buffers.size(), 4u);
  EXPECT_EQ(problems[0].buffers[0].count, 2 * 4 * 513 * 64);
  EXPECT_EQ(problems[0].reference_launch.grid[0], (513u + 7) / 8);

  const Config config{{"BLOCK_M", 128}, {"BLOCK_N", 64},  {"WARPS", 4},  {"STAGES", 2},
                      {"SWIZZLE", 1},   {"Q_IN_REGS", 0}, {"SPLITS", 1}, {"PERSISTENT", 0}};
  const auto launches = extra_variant_launches(space, config, sizes, device);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].grid[0], 5u);  // cdiv(513, 128), where the main problem has 4
  EXPECT_EQ(space.variant_launch(config, sizes, device).grid[0], 4u);
  EXPECT_EQ(launches[0].args.at(6).name, "S");
  EXPECT_EQ(launches[0].args.at(6).value, 513);

  // Two special-input rounds (Q and K in [-10, 10], K = 0) and one extra problem.
  EXPECT_EQ(extra_validation_rounds(space, sizes), 3);
}

TEST(WorkerSetup, TheDerivedInputsKernelHasALaunchForEveryProblem) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/derived_inputs.json");
  const Sizes sizes = space.resolve_problem("N=1000");
  const DeviceInfo device = offline_device("sm_90");
  const auto derived = derived_inputs_setup(space, "cubin bytes", sizes, device);
  ASSERT_TRUE(derived.has_value());
  EXPECT_EQ(derived->cubin, "cubin bytes");
  EXPECT_EQ(derived->launch.kernel_name, "derive_y");
  EXPECT_EQ(derived->launch.args.at(2).value, 1000);
  const auto problems = extra_problem_setups(space, sizes, device);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].label, "N=1001");
  ASSERT_TRUE(problems[0].derived_launch.has_value());
  EXPECT_EQ(problems[0].derived_launch->args.at(2).value, 1001);
  EXPECT_EQ(problems[0].derived_launch->grid[0], (1001u + 127) / 128);
  // One special-input round (x in [-100, 100]) and one extra problem.
  EXPECT_EQ(extra_validation_rounds(space, sizes), 2);

  const SearchSpace plain = SearchSpace::load("tests/data/spaces/saxpy.json");
  EXPECT_FALSE(derived_inputs_setup(plain, "", plain.resolve_problem(""), device).has_value());
}

}  // namespace worker_setup_test
}  // namespace evotune
