// Output comparison, the verdict, and timing statistics.
#include "eval/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace evotune {
namespace compare_test {

TEST(CompareOutputs, IdenticalOutputsHaveZeroError) {
  const std::vector<double> ref{1, -2, 3};
  const ErrorStats stats = compare_outputs(ref, ref);
  EXPECT_EQ(stats.max_abs, 0);
  EXPECT_EQ(stats.rel_l2, 0);
  EXPECT_EQ(stats.non_finite, 0);
  EXPECT_EQ(stats.elements, 3);
  EXPECT_EQ(judge(stats, {}), Status::ok);
}

TEST(CompareOutputs, MeasuresMaxAbsAndRelL2) {
  const std::vector<double> ref{3, 4};  // ||ref|| = 5
  const std::vector<double> out{3, 5};  // diff (0, 1)
  const ErrorStats stats = compare_outputs(ref, out);
  EXPECT_DOUBLE_EQ(stats.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(stats.rel_l2, 0.2);
  EXPECT_EQ(judge(stats, {}), Status::wrong_result);
  EXPECT_EQ(judge(stats, {1.0, 0.2}), Status::ok);
  EXPECT_EQ(judge(stats, {1.0, 0.1}), Status::wrong_result);
  EXPECT_EQ(judge(stats, {0.5, 0.3}), Status::wrong_result);
}

TEST(CompareOutputs, CountsNonFiniteOutputsAndSkipsThemInErrors) {
  const std::vector<double> ref{1, 2, 3, 4};
  const std::vector<double> out{1, NAN, INFINITY, 4};
  const ErrorStats stats = compare_outputs(ref, out);
  EXPECT_EQ(stats.non_finite, 2);
  EXPECT_EQ(stats.max_abs, 0);
  EXPECT_EQ(judge(stats, {}), Status::nan);
}

TEST(CompareOutputs, MatchingNonFiniteIsNotCounted) {
  const std::vector<double> ref{NAN, INFINITY, -INFINITY, 1};
  const std::vector<double> out{NAN, INFINITY, INFINITY, 1};
  const ErrorStats stats = compare_outputs(ref, out);
  EXPECT_EQ(stats.non_finite, 1);  // only +Inf where the reference has -Inf
}

TEST(CompareOutputs, FiniteWhereReferenceIsNot) {
  const ErrorStats stats = compare_outputs({NAN, 1}, {0, 1});
  EXPECT_TRUE(std::isinf(stats.max_abs));
  EXPECT_EQ(judge(stats, {}), Status::wrong_result);
}

TEST(CompareOutputs, ZeroReferenceUsesAbsoluteNorm) {
  const ErrorStats stats = compare_outputs({0, 0}, {0, 1e-3});
  EXPECT_DOUBLE_EQ(stats.rel_l2, 1e-3);
  EXPECT_EQ(judge(stats, {}), Status::ok);
}

TEST(CompareOutputs, LengthMismatchThrows) { EXPECT_THROW(compare_outputs({1, 2}, {1}), Error); }

TEST(CompareOutputs, MergeKeepsTheWorst) {
  const ErrorStats a = compare_outputs({1, 1}, {1, 1.5});
  const ErrorStats b = compare_outputs({1}, {NAN});
  const ErrorStats merged = merge(a, b);
  EXPECT_DOUBLE_EQ(merged.max_abs, 0.5);
  EXPECT_EQ(merged.non_finite, 1);
  EXPECT_EQ(merged.elements, 3);
  EXPECT_EQ(judge(merged, {}), Status::nan);
  EXPECT_EQ(judge(merge(a, {}), {}), Status::wrong_result);
}

TEST(CompareOutputs, WorstRoundKeepsTheElementCount) {
  const ErrorStats first = compare_outputs({1, 1, 1}, {1, 1.25, NAN});
  const ErrorStats second = compare_outputs({2, 2, 2}, {2.5, 2, 2});
  const ErrorStats worst = worst_round(first, second);
  EXPECT_DOUBLE_EQ(worst.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(worst.rel_l2, std::max(first.rel_l2, second.rel_l2));
  EXPECT_EQ(worst.non_finite, 1);
  EXPECT_EQ(worst.elements, 3);
}

TEST(Judge, NanStatisticIsWrong) {
  ErrorStats stats;
  stats.rel_l2 = NAN;
  EXPECT_EQ(judge(stats, {}), Status::wrong_result);
}

TEST(Summarize, StatisticsOfKnownSamples) {
  const TimingStats stats = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(stats.samples, 5);
  EXPECT_DOUBLE_EQ(stats.min_us, 1);
  EXPECT_DOUBLE_EQ(stats.median_us, 3);
  EXPECT_DOUBLE_EQ(stats.mean_us, 3);
  EXPECT_DOUBLE_EQ(stats.stddev_us, std::sqrt(2.5));
  EXPECT_DOUBLE_EQ(stats.p20_us, 1.8);  // position 0.8 between 1 and 2
  EXPECT_DOUBLE_EQ(stats.p80_us, 4.2);
}

TEST(Summarize, EvenCountMedianInterpolates) { EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 10}).median_us, 2.5); }

TEST(Summarize, OneAndNoSamples) {
  const TimingStats one = summarize({7});
  EXPECT_EQ(one.samples, 1);
  EXPECT_EQ(one.median_us, 7);
  EXPECT_EQ(one.p20_us, 7);
  EXPECT_EQ(one.stddev_us, 0);
  const TimingStats none = summarize({});
  EXPECT_EQ(none.samples, 0);
  EXPECT_EQ(none.median_us, 0);
}

TEST(DescribeVerdict, NamesTheFigureAndItsTolerance) {
  ErrorStats error;
  error.max_abs = 0.5;
  error.rel_l2 = 0.25;
  EXPECT_EQ(describe_verdict(Status::wrong_result, error, Tolerances{0.02, 0.01}),
            "max_abs 0.5 (tolerance 0.02), rel_l2 0.25 (tolerance 0.01)");
  error.non_finite = 3;
  error.elements = 4096;
  EXPECT_EQ(describe_verdict(Status::nan, error, Tolerances{}),
            "3 of 4096 output elements are NaN/Inf (unwritten or non-finite)");
}

}  // namespace compare_test
}  // namespace evotune
