// Best-so-far curves, ranking and per-parameter sensitivity on hand-made measurements.
#include "report/analysis.hpp"

#include <gtest/gtest.h>

#include "report/report_data_fixture.hpp"

namespace evotune::report {
namespace analysis_test {

TEST(ReportAnalysis, BestSoFarIsPerRunMonotoneAndStartsAtTheFirstOk) {
  const ReportData data = report_test::report_data();
  const auto curves = best_so_far(data);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].run->id, 1);
  std::vector<double> first;
  for (const auto& point : curves[0].points) first.push_back(point.best_us);
  EXPECT_EQ(first, (std::vector<double>{20, 12, 12, 9}));
  EXPECT_EQ(curves[0].points[2].evaluations, 3);  // the launch error counts as an evaluation
  // Run 2 starts with a failure: its curve starts at its second measurement.
  ASSERT_EQ(curves[1].points.size(), 3u);
  EXPECT_EQ(curves[1].points[0].evaluations, 2);
  EXPECT_EQ(curves[1].points[0].seconds, 0.4);
  EXPECT_EQ(curves[1].points.back().best_us, 9);
}

TEST(ReportAnalysis, RankedOkBreaksTiesByMeasurementLikeBest) {
  const ReportData data = report_test::report_data();
  const auto ranked = ranked_ok(data);
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked[0]->result.measurement_id, 4);  // 9 us, stored before measurement 8's 9 us
  EXPECT_EQ(ranked[1]->result.measurement_id, 8);
  EXPECT_EQ(ranked[4]->result.timing->median_us, 20);
}

TEST(ReportAnalysis, ParametersAreOrderedBySpreadWithTheirStatuses) {
  const ReportData data = report_test::report_data();
  const auto parameters = parameter_times(data);
  ASSERT_EQ(parameters.size(), 2u);
  // ITEMS: medians 16 (1), 9 (2), 15 (4) -> 16 / 9; BLOCK: 15 (64), 10.5 (128), none (256) -> 15 / 10.5.
  EXPECT_EQ(parameters[0].name, "ITEMS");
  EXPECT_DOUBLE_EQ(parameters[0].spread, 16.0 / 9.0);
  EXPECT_EQ(parameters[1].name, "BLOCK");
  EXPECT_DOUBLE_EQ(parameters[1].spread, 15.0 / 10.5);
  const ValueTimes& block_256 = parameters[1].values[2];
  EXPECT_EQ(block_256.value, 256);
  EXPECT_TRUE(block_256.ok_us.empty());
  EXPECT_EQ(block_256.statuses.at(Status::launch_error), 2);
  EXPECT_EQ(block_256.statuses.at(Status::resource_error), 1);
}

TEST(ReportAnalysis, QuantileInterpolates) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.25), 7);
  EXPECT_DOUBLE_EQ(quantile({1, 3}, 1), 3);
}

}  // namespace analysis_test
}  // namespace evotune::report
