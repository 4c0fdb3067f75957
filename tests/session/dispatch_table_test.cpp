// The dispatch rule: exact, nearest of the same compile-time sizes (log distance), skipping winners that
// cannot run the problem, the robust default (least geometric-mean slowdown), refusal of untuned
// compile-time sizes; and leave-one-out over sweeps of the saxpy space.
#include "session/dispatch_table.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "replay/sweep_fixture.hpp"
#include "session/dispatch_bench.hpp"

namespace evotune {
namespace {

const Config kA{{"T", 1}}, kB{{"T", 2}}, kC{{"T", 3}};

// S=512 and S=4096 at D=64, S=1024 at D=128. A wins at 512, B at 4096; C is never first but close everywhere.
DispatchTable table() {
  return DispatchTable({"D"}, {{{{"S", 512}, {"D", 64}}, {{kA, 10.0}, {kB, 20.0}, {kC, 11.0}}},
                               {{{"S", 4096}, {"D", 64}}, {{kA, 200.0}, {kB, 100.0}, {kC, 105.0}}},
                               {{{"S", 1024}, {"D", 128}}, {{kC, 50.0}}}});
}

const auto kAll = [](const Config&) { return true; };

TEST(DispatchTable, ExactThenNearestInLogSpaceWithinTheSameCompileTimeSizes) {
  const DispatchTable dispatch = table();
  auto exact = dispatch.pick({{"S", 4096}, {"D", 64}}, kAll);
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->rule, DispatchRule::exact);
  EXPECT_EQ(exact->config, kB);
  // 1024 is 1 from 512 and 2 from 4096 in log2; the D=128 problem at S=1024 is not a candidate.
  auto near = dispatch.pick({{"S", 1024}, {"D", 64}}, kAll);
  ASSERT_TRUE(near);
  EXPECT_EQ(near->rule, DispatchRule::nearest);
  EXPECT_EQ(near->config, kA);
  EXPECT_EQ(near->from, (Sizes{{"S", 512}, {"D", 64}}));
  EXPECT_EQ(dispatch.pick({{"S", 2048}, {"D", 128}}, kAll)->config, kC);
  EXPECT_FALSE(dispatch.pick({{"S", 512}, {"D", 96}}, kAll)) << "no variant covers D=96";
  EXPECT_EQ(dispatch.winners(), (std::vector<Config>{kA, kB, kC}));
}

TEST(DispatchTable, SkipsWinnersThatCannotRunAndFallsBackToTheRobustDefault) {
  const DispatchTable dispatch = table();
  // A cannot run: the next nearest problem's winner, B.
  auto next = dispatch.pick({{"S", 1024}, {"D", 64}}, [](const Config& c) { return c != kA; });
  ASSERT_TRUE(next);
  EXPECT_EQ(next->config, kB);
  // Only C runs: no winner of a D=64 problem runs, and the default is taken among winners, so none.
  EXPECT_FALSE(dispatch.pick({{"S", 1024}, {"D", 64}}, [](const Config& c) { return c == kC; }));
  // Among the D=64 winners measured everywhere, A's geometric-mean slowdown is sqrt(1 * 2), B's sqrt(2 * 1):
  // a tie, the first wins.
  EXPECT_EQ(dispatch.robust_default({{"S", 700}, {"D", 64}}, kAll), kA);
  const DispatchTable skewed({"D"}, {{{{"S", 512}, {"D", 64}}, {{kA, 10.0}, {kB, 11.0}}},
                                     {{{"S", 4096}, {"D", 64}}, {{kA, 300.0}, {kB, 100.0}}}});
  EXPECT_EQ(skewed.robust_default({{"S", 700}, {"D", 64}}, kAll), kB);
}

// What an export bakes in: the winners measured everywhere, least slowdown first, then the central winner.
TEST(DispatchTable, TheDefaultOrderIsWhatRobustDefaultTries) {
  EXPECT_EQ(table().default_order({{"S", 700}, {"D", 64}}), (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(table().default_order({{"S", 64}, {"D", 128}}), (std::vector<std::size_t>{2, 2}));
  EXPECT_TRUE(table().default_order({{"S", 64}, {"D", 96}}).empty());
  const DispatchTable partial({"D"}, {{{{"S", 512}, {"D", 64}}, {{kA, 11.0}, {kB, 10.0}}},
                                      {{{"S", 4096}, {"D", 64}}, {{kA, 300.0}}}});
  // B (512's winner) was not measured at 4096: only A (4096's) is ranked, then the most central problem's
  // winner (512's, the earlier of a tie).
  EXPECT_EQ(partial.default_order({{"S", 700}, {"D", 64}}), (std::vector<std::size_t>{1, 0}));
}

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

}  // namespace
}  // namespace evotune
