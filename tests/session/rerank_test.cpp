// The rerank's pure parts: the rotating order of its rounds and the summary of a config's rounds.
#include "session/rerank.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace rerank_test {

TEST(Rerank, EachRoundTimesEveryConfigOnceStartingOneFurther) {
  EXPECT_EQ(round_order(4, 0), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(round_order(4, 1), (std::vector<std::size_t>{1, 2, 3, 0}));
  EXPECT_EQ(round_order(4, 5), (std::vector<std::size_t>{1, 2, 3, 0}));
  EXPECT_EQ(round_order(3, 2), (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_TRUE(round_order(0, 3).empty());
}

TEST(Rerank, RoundsAreSummarizedByTheirMedianAndTheirExtremes) {
  const Remeasurement odd = summarize_rounds({5.0, 4.0, 6.5, 4.5, 5.5});
  EXPECT_EQ(odd.median_us, 5.0);
  EXPECT_EQ(odd.min_us, 4.0);
  EXPECT_EQ(odd.max_us, 6.5);
  EXPECT_EQ(odd.round_medians_us, (std::vector<double>{5.0, 4.0, 6.5, 4.5, 5.5}));  // in round order
  const Remeasurement even = summarize_rounds({3.0, 1.0, 2.0, 4.0});
  EXPECT_EQ(even.median_us, 2.5);
  EXPECT_EQ(summarize_rounds({}).round_medians_us.size(), 0u);
}

}  // namespace rerank_test
}  // namespace evotune
