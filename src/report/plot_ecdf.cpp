// The distribution of ok times: an empirical CDF for all runs together (and each run when several), with the
// share of configs within 5% and 10% of the best.
#include <algorithm>

#include "report/chart.hpp"
#include "report/palette.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

std::vector<double> ok_times(const ReportData& data, std::optional<std::int64_t> run_id) {
  std::vector<double> times;
  for (const auto& row : data.measurements)
    if (row.result.status == Status::ok && row.result.timing && (!run_id || row.run_id == *run_id))
      times.push_back(row.result.timing->median_us);
  std::sort(times.begin(), times.end());
  return times;
}

// The step line of an ECDF, in percent, continued to the axis' right end.
std::vector<Point> ecdf_line(const std::vector<double>& sorted, const Scale& x, const Scale& y) {
  std::vector<Point> line{{x(sorted.front()), y(0)}};
  const double n = static_cast<double>(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i + 1 < sorted.size() && sorted[i + 1] == sorted[i]) continue;  // one riser per distinct time
    line.push_back({x(sorted[i]), line.back().y});
    line.push_back({x(sorted[i]), y(100.0 * static_cast<double>(i + 1) / n)});
  }
  line.push_back({x(x.hi()), line.back().y});
  return line;
}

}  // namespace

Plot ok_time_ecdf(const ReportData& data) {
  Plot plot{
      "ecdf",
      "Distribution of ok times",
      "The share of the ok configs measured that run in at most the given time (log scale). A random "
      "run's curve estimates the whole space's distribution; a guided strategy's leans to the fast end. "
      "The dashed lines mark 5% and 10% above the best: how rare near-best configs are among those "
      "measured.",
      {},
      {}};
  const std::vector<double> all = ok_times(data, std::nullopt);
  if (all.empty()) {
    plot.note = "No ok measurement yet.";
    return plot;
  }
  Frame frame;
  frame.right = 250;
  Chart chart(plot.title, frame);
  const Scale x = Scale::log(all.front() / 1.03, all.back() * 1.03, chart.left(), chart.right());
  const Scale y = Scale::linear(0, 100, chart.bottom(), chart.top());
  chart.x_axis(x, "median time (µs, log scale)");
  chart.y_axis(y, "ok configs at most this fast (%)");

  std::vector<LegendEntry> legend;
  const double best = all.front();
  for (const double margin : {0.05, 0.10}) {
    const double limit = best * (1 + margin);
    const auto within = std::upper_bound(all.begin(), all.end(), limit) - all.begin();
    chart.marks().line({x(limit), chart.top()}, {x(limit), chart.bottom()}, "#888888", 1, true);
    legend.push_back({"within " + fixed(100 * margin, 0) + "% of best: " + std::to_string(within) + " of " +
                          std::to_string(all.size()) + " (" +
                          percent_text(static_cast<double>(within) / static_cast<double>(all.size())) + ")",
                      "#888888", LegendEntry::Mark::dashed_line});
  }
  chart.marks().polyline(ecdf_line(all, x, y), "#222222", 2);
  legend.push_back({"all runs (" + std::to_string(all.size()) + " ok)", "#222222", LegendEntry::Mark::line});
  std::size_t drawn = 0;
  for (const auto& run : data.runs) {
    const auto times = data.runs.size() > 1 ? ok_times(data, run.id) : std::vector<double>{};
    if (times.empty()) continue;
    const std::string colour = series_colour(drawn++);
    chart.marks().polyline(ecdf_line(times, x, y), colour, 1.2);
    legend.push_back(
        {run_label(run) + " (" + std::to_string(times.size()) + ")", colour, LegendEntry::Mark::line});
  }
  chart.legend(legend);
  plot.svg = chart.svg();
  return plot;
}

}  // namespace evotune::report
