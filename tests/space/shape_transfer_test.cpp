// Transfer across shapes: the distance between problems, the configs a search starts from, the tuning order.
#include "space/shape_transfer.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace evotune {
namespace shape_transfer_test {

Config config(std::int64_t block) { return {{"BLOCK", block}}; }

ProblemTime time(std::int64_t s, std::int64_t block, double us) {
  return {{{"B", 1}, {"S", s}}, block, config(block), us};
}

TEST(ShapeTransfer, DistanceIsInLog2OfEachSize) {
  EXPECT_DOUBLE_EQ(problem_distance({{"S", 512}}, {{"S", 1024}}), 1.0);
  EXPECT_DOUBLE_EQ(problem_distance({{"B", 1}, {"S", 512}}, {{"B", 8}, {"S", 4096}}), std::sqrt(18.0));
  EXPECT_DOUBLE_EQ(problem_distance({{"S", 512}, {"CAUSAL", 0}}, {{"S", 512}, {"CAUSAL", 1}}), 1.0);
  EXPECT_DOUBLE_EQ(problem_distance({{"S", 512}}, {{"S", 512}, {"D", 64}}), 1.0);
  EXPECT_DOUBLE_EQ(problem_distance({{"S", 77}}, {{"S", 77}}), 0.0);
}

TEST(ShapeTransfer, ConfigsComeFromTheNearestProblemsFastestFirst) {
  const std::vector<ProblemTime> times{
      time(512, 1, 9.0),  time(512, 2, 8.0),  time(512, 3, 7.0),   // 3 away from 4096
      time(2048, 4, 5.0), time(2048, 2, 4.0), time(2048, 5, 6.0),  // 1 away
      time(8192, 6, 3.0), time(8192, 4, 2.0),                      // 1 away, later
      time(4096, 7, 1.0),                                          // the target itself
  };
  EXPECT_EQ(transfer_configs(times, {{"B", 1}, {"S", 4096}}, 2, 2),
            (std::vector<Config>{config(2), config(4), config(6)}));  // 4 from 8192 repeats: skipped
  EXPECT_EQ(transfer_configs(times, {{"B", 1}, {"S", 4096}}, 3, 1),
            (std::vector<Config>{config(2), config(4), config(3)}));
  EXPECT_TRUE(transfer_configs({time(4096, 7, 1.0)}, {{"B", 1}, {"S", 4096}}, 2, 8).empty());
}

TEST(ShapeTransfer, OrderStartsCentralThenAlwaysTheNearestToOneTuned) {
  const std::vector<Sizes> problems{{{"S", 512}}, {{"S", 8192}}, {{"S", 2048}}, {{"S", 1024}}, {{"S", 4096}}};
  // Nothing tuned: 2048 is the most central; then always a problem 1 away from one placed, ties in the given
  // order (1024, then 512 before 4096).
  EXPECT_EQ(transfer_order(problems, {}), (std::vector<std::size_t>{2, 3, 0, 4, 1}));
  // 8192 tuned already: the nearest new problem is 4096, and the walk goes down from there.
  EXPECT_EQ(transfer_order(problems, {{{"S", 8192}}}), (std::vector<std::size_t>{1, 4, 2, 3, 0}));
  EXPECT_TRUE(transfer_order({}, {}).empty());
}

}  // namespace shape_transfer_test
}  // namespace evotune
