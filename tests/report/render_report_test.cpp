// render_report on hand-made data: every plot drawn with both axes, the reference line, the tables, the
// --pair checks, and the same bytes every time.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "report/report.hpp"
#include "report/report_data_fixture.hpp"
#include "report/svg_checks.hpp"

namespace evotune::report {
namespace render_report_test {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RenderReport, DrawsEveryPlotWithBothAxes) {
  const Report report = render_report(report_test::report_data(), {});
  std::vector<std::string> ids;
  for (const auto& plot : report.plots) {
    SCOPED_TRACE(plot.id);
    ids.push_back(plot.id);
    ASSERT_FALSE(plot.svg.empty()) << plot.note;
    EXPECT_EQ(report_test::axis_problems(plot.svg), std::vector<std::string>{});
    EXPECT_TRUE(contains(report.html, plot.svg)) << "the page inlines the plot";
    EXPECT_TRUE(contains(standalone_svg(plot), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="));
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"convergence-evaluations", "convergence-time", "statuses-by-run",
                                           "statuses-by-value", "sensitivity", "pair-heatmap", "ecdf",
                                           "top-configs", "registers-spills", "shape-slowdown"}));
}

TEST(RenderReport, ShowsTheReferenceTimeOnlyWhenStored) {
  ReportData data = report_test::report_data();
  const Report with = render_report(data, {});
  EXPECT_TRUE(contains(with.plots[0].svg, "reference 30.00 µs"));
  EXPECT_TRUE(contains(with.plots[0].svg, "stroke-dasharray"));
  data.reference_us.reset();
  const Report without = render_report(data, {});
  EXPECT_FALSE(contains(without.plots[0].svg, "reference"));
  EXPECT_FALSE(contains(without.plots[0].svg, "stroke-dasharray"));
  EXPECT_TRUE(contains(without.html, "No reference-kernel time is stored in this database."));
}

TEST(RenderReport, DrawsTheLibraryBaselineWhereARunTimedOne) {
  ReportData data = report_test::report_data();
  EXPECT_FALSE(contains(render_report(data, {}).plots[0].svg, "cublasLt"));
  data.baseline = BaselineTiming{"cublasLt 13.1.0", 41.5, 40.25, 2, 8, "graph x3", 42.75};
  const Report with = render_report(data, {});
  for (const std::size_t plot : {0u, 1u}) {
    // The re-timed median, labelled and in the legend, on the axis (an axis check finds nothing off it).
    EXPECT_TRUE(contains(with.plots[plot].svg, "cublasLt 13.1.0 42.75 µs")) << with.plots[plot].svg;
    EXPECT_EQ(report_test::axis_problems(with.plots[plot].svg), std::vector<std::string>{});
  }
  EXPECT_TRUE(contains(with.html,
                       "Baseline cublasLt 13.1.0: 42.75 µs (its heuristic's algorithm #2; the first: "
                       "41.50 µs at the run's start)."));
  data.baseline->reranked_us = 0;  // no rerank: the best algorithm's time at the start
  EXPECT_TRUE(contains(render_report(data, {}).plots[0].svg, "cublasLt 13.1.0 40.25 µs"));
}

TEST(RenderReport, TablesListRunsFailuresByReasonAndTheFastest) {
  const Report report = render_report(report_test::report_data(), {});
  // Failures grouped by (status, reason), most frequent first, the reason escaped.
  EXPECT_TRUE(
      contains(report.html,
               "<tr><td>launch_error</td><td><code>illegal address</code></td><td class=\"num\">2</td>"
               "<td>3, 7</td></tr>"));
  EXPECT_TRUE(contains(report.html, "<code>shared memory &lt;too&gt; &quot;large&quot;</code>"));
  EXPECT_TRUE(contains(report.html, "<code>evotune tune tiny.json --strategy evolve</code>"));
  EXPECT_TRUE(contains(report.html, "<td>2026-01-02T03:04:05.678Z</td>"));
  // The GPU's state at the run's start and end (NVML), a line each with the clock and what held it down (all
  // of NVML's figures in the line's tooltip), a dash where none was recorded.
  EXPECT_TRUE(
      contains(report.html,
               "<td><div class=\"gpu\" title=\"SM 1980/? MHz, memory ?/? MHz, clocks: idle\">start: 1980 "
               "MHz</div><div class=\"gpu\" title=\"SM 1755/? MHz, memory ?/? MHz, clocks: sw_thermal\">end: "
               "1755 MHz, held down: sw_thermal</div></td>"));
  EXPECT_TRUE(contains(report.html,
                       "<td>13.0</td><td>–</td></tr>\n<tr><td colspan=\"13\" class=\"under\"><div>timing: "
                       "CUDA events, 3 warm-up + 30 timed launches, L2 not flushed, 2 validation "
                       "rounds</div><div>command: <code>evotune tune tiny.json --strategy evolve"));
  EXPECT_TRUE(contains(report.html, "Fastest: <b>9.00 µs</b> (config 4: <code>BLOCK=128 ITEMS=2</code>)"));
}

// Self-contained: no script, and the only addresses are the XHTML and SVG namespaces.
TEST(RenderReport, NeedsNothingFromTheNetwork) {
  const std::string html = render_report(report_test::report_data(), {}).html;
  EXPECT_FALSE(contains(html, "<script"));
  EXPECT_FALSE(contains(html, "src="));
  EXPECT_FALSE(contains(html, "@import"));
  std::size_t addresses = 0, namespaces = 0;
  for (auto at = html.find("://"); at != std::string::npos; at = html.find("://", at + 1)) ++addresses;
  for (auto at = html.find("xmlns=\"http://www.w3.org/"); at != std::string::npos;
       at = html.find("xmlns=\"http://www.w3.org/", at + 1))
    ++namespaces;
  EXPECT_EQ(addresses, namespaces);
}

TEST(RenderReport, PairDefaultsToTheMostSensitiveAndIsChecked) {
  const ReportData data = report_test::report_data();
  EXPECT_EQ(render_report(data, {}).plots[5].title, "Best time by ITEMS and BLOCK");
  ReportOptions options;
  options.pair = {"BLOCK", "ITEMS"};
  EXPECT_EQ(render_report(data, options).plots[5].title, "Best time by BLOCK and ITEMS");
  options.pair = {"BLOCK", "WARPS"};
  try {
    render_report(data, options);
    FAIL() << "an unknown parameter was accepted";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "--pair: tiny has no parameter 'WARPS' (its parameters: BLOCK, ITEMS)");
  }
  options.pair = {"BLOCK", "BLOCK"};
  EXPECT_THROW(render_report(data, options), Error);
}

TEST(RenderReport, SameDataSameBytes) {
  EXPECT_EQ(render_report(report_test::report_data(), {}).html,
            render_report(report_test::report_data(), {}).html);
}

TEST(RenderReport, NoMeasurementsStillMakesAPageThatSaysWhy) {
  ReportData data = report_test::report_data();
  data.measurements.clear();
  data.problem_times.clear();
  const Report report = render_report(data, {});
  for (const auto& plot : report.plots) {
    EXPECT_TRUE(plot.svg.empty()) << plot.id;
    EXPECT_FALSE(plot.note.empty()) << plot.id;
  }
  EXPECT_TRUE(contains(report.html, "No failures"));
}

}  // namespace render_report_test
}  // namespace evotune::report
