// The dispatch benchmark: leave-one-out over sweeps of the saxpy space, each problem's config picked by the
// dispatch rule from the others.
#include "bench/dispatch_bench.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "replay/sweep_fixture.hpp"

namespace evotune {
namespace dispatch_bench_test {

RecordedSweep sweep_at(const SearchSpace& space, int n, int best_block) {
  RecordedSweep sweep = replay_test::synthetic_sweep(space, [](std::size_t) { return 1.0; });
  sweep.problem = space.resolve_problem("N=" + std::to_string(n));
  sweep.results.clear();
  for (const Config& config : space.enumerate(sweep.problem, sweep.device)) {
    const auto block = config.at("BLOCK");
    sweep.results.push_back(
        replay_test::ok_result(config, 10.0 + static_cast<double>(std::abs(block - best_block)) / 64.0 +
                                           static_cast<double>(config.at("ITEMS"))));
  }
  return sweep;
}

TEST(DispatchBench, LeaveOneOutTakesTheNearestProblemsWinner) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/saxpy.json");
  const auto rows = bench_dispatch(
      space, {sweep_at(space, 4096, 128), sweep_at(space, 8192, 128), sweep_at(space, 65536, 512)});
  ASSERT_EQ(rows.size(), 3u);
  // 4096 from 8192 (same winner): no slowdown; 65536 from 8192 (BLOCK 128 instead of 512): 10 + 6 vs 10
  // + 1... with ITEMS 1.
  ASSERT_TRUE(rows[0].slowdown());
  EXPECT_DOUBLE_EQ(*rows[0].slowdown(), 1.0);
  EXPECT_EQ(rows[0].choice->from.at("N"), 8192);
  ASSERT_TRUE(rows[2].slowdown());
  EXPECT_DOUBLE_EQ(*rows[2].slowdown(), (10.0 + 6.0 + 1.0) / (10.0 + 1.0));
  EXPECT_THROW(bench_dispatch(space, {sweep_at(space, 4096, 128)}), Error);
}

}  // namespace dispatch_bench_test
}  // namespace evotune
