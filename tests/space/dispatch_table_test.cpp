// The dispatch rule: exact, nearest of the same compile-time sizes (log distance), skipping winners that
// cannot run the problem, the robust default (least geometric-mean slowdown), then the covers, refusal of
// untuned compile-time sizes.
#include "space/dispatch_table.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace evotune {
namespace dispatch_table_test {

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

// Covers: configs measured beside the winners. Tried after every winner and the default, in the order they
// were added, for their own compile-time sizes only.
TEST(DispatchTable, CoversAreTriedAfterTheWinnersAndTheDefault) {
  DispatchTable dispatch = table();
  dispatch.add_cover({{"S", 512}, {"D", 64}}, kC);
  dispatch.add_cover({{"S", 512}, {"D", 64}}, kC);  // held once
  ASSERT_EQ(dispatch.covers().size(), 1u);
  EXPECT_EQ(dispatch.cover_order({{"S", 100}, {"D", 64}}), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(dispatch.cover_order({{"S", 100}, {"D", 128}}).empty());
  // Only C runs: no D=64 winner does (the case the earlier test refuses), so the cover serves, as a default.
  const auto only_c = [](const Config& c) { return c == kC; };
  const auto covered = dispatch.pick({{"S", 1024}, {"D", 64}}, only_c);
  ASSERT_TRUE(covered);
  EXPECT_EQ(covered->rule, DispatchRule::fallback);
  EXPECT_EQ(covered->config, kC);
  // A winner that runs comes first, though the cover runs too.
  EXPECT_EQ(dispatch.pick({{"S", 1024}, {"D", 64}}, kAll)->config, kA);
  // Not for other compile-time sizes: D=128's winner is C itself, so a config that is neither refuses.
  EXPECT_FALSE(dispatch.pick({{"S", 1024}, {"D", 64}}, [](const Config&) { return false; }));
  EXPECT_EQ(dispatch.winners(), (std::vector<Config>{kA, kB, kC}));
}

TEST(DispatchTable, ACoverIsAConfigMeasuredAtATunedProblem) {
  DispatchTable dispatch = table();
  EXPECT_THROW(dispatch.add_cover({{"S", 1024}, {"D", 128}}, kA), Error)
      << "A was not measured at S=1024, D=128";
  EXPECT_THROW(dispatch.add_cover({{"S", 2048}, {"D", 64}}, kA), Error) << "S=2048 was not tuned";
  EXPECT_TRUE(dispatch.covers().empty());
}

}  // namespace dispatch_table_test
}  // namespace evotune
