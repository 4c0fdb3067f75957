// Status bars: how many measurements ended in each status, per run and per parameter value.
#include <algorithm>
#include <map>

#include "report/chart.hpp"
#include "report/palette.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

using Counts = std::map<Status, int>;

int total(const Counts& counts) {
  int sum = 0;
  for (const auto& [status, n] : counts) sum += n;
  return sum;
}

std::vector<LegendEntry> status_legend(const std::vector<Counts>& bars) {
  Counts seen;
  for (const auto& bar : bars)
    for (const auto& [status, n] : bar) seen[status] += n;
  std::vector<LegendEntry> legend;
  for (const auto& [status, n] : seen)
    legend.push_back({std::string(to_string(status)), status_colour(status)});
  return legend;
}

// One stacked bar per category, statuses bottom-up in their declared order (ok at the bottom). share: heights
// are fractions of the bar's total, in percent.
void draw_bars(Chart& chart, const Band& band, const Scale& y, const std::vector<Counts>& bars, bool share) {
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int sum = total(bars[i]);
    const std::string name = band.categories()[i].group.empty()
                                 ? band.categories()[i].label
                                 : band.categories()[i].group + "=" + band.categories()[i].label;
    double stacked = 0;
    for (const auto& [status, n] : bars[i]) {
      const double height = share ? 100.0 * n / sum : n;
      const double top = y(stacked + height), bottom = y(stacked);
      chart.marks().rect(band.centre(i) - band.width() / 2, top, band.width(), bottom - top,
                         status_colour(status),
                         name + ": " + std::string(to_string(status)) + " " + std::to_string(n) + " of " +
                             std::to_string(sum) + " (" + percent_text(static_cast<double>(n) / sum) + ")");
      stacked += height;
    }
  }
}

}  // namespace

Plot statuses_by_run(const ReportData& data) {
  Plot plot{"statuses-by-run",
            "Statuses per run",
            "How each run's measurements ended: ok, or the failure status. The failures table below groups "
            "them by reason.",
            {},
            {}};
  std::vector<Category> categories;
  std::vector<Counts> bars;
  for (const auto& run : data.runs) {
    Counts counts;
    for (const auto& row : data.measurements)
      if (row.run_id == run.id) ++counts[row.result.status];
    if (counts.empty()) continue;
    categories.push_back({"run " + std::to_string(run.id), run.strategy});
    bars.push_back(std::move(counts));
  }
  if (bars.empty()) {
    plot.note = "No run stored a measurement of this problem.";
    return plot;
  }
  int highest = 0;
  for (const auto& bar : bars) highest = std::max(highest, total(bar));
  Frame frame;
  frame.right = 150;
  frame.bottom = 62;
  frame.width = std::max(520.0, frame.left + frame.right + 70.0 * static_cast<double>(bars.size()));
  Chart chart(plot.title, frame);
  const Band band(categories, chart.left(), chart.right(), 0.35);
  const Scale y = Scale::linear(0, highest * 1.05, chart.bottom(), chart.top());
  chart.x_bands(band, "run (grouped by strategy)");
  chart.y_axis(y, "measurements");
  draw_bars(chart, band, y, bars, false);
  chart.legend(status_legend(bars));
  plot.svg = chart.svg();
  return plot;
}

Plot statuses_by_value(const std::vector<ParameterTimes>& parameters) {
  Plot plot{
      "statuses-by-value",
      "Statuses per parameter value",
      "For each value of each parameter, how the measurements with that value ended, as a share of them "
      "(hover a bar for the counts). A value whose bar is mostly failures is one the constraints could "
      "exclude. Parameters in order of sensitivity, as in the next plot.",
      {},
      {}};
  std::vector<Category> categories;
  std::vector<Counts> bars;
  for (const auto& parameter : parameters) {
    for (const auto& value : parameter.values) {
      if (value.statuses.empty()) continue;
      categories.push_back({std::to_string(value.value), parameter.name});
      bars.push_back(value.statuses);
    }
  }
  if (bars.empty()) {
    plot.note = "No measurements.";
    return plot;
  }
  Frame frame;
  frame.right = 150;
  frame.bottom = 70;
  frame.width = std::max(760.0, frame.left + frame.right + 30.0 * static_cast<double>(bars.size()));
  Chart chart(plot.title, frame);
  const Band band(categories, chart.left(), chart.right(), 0.25);
  const Scale y = Scale::linear(0, 100, chart.bottom(), chart.top());
  chart.x_bands(band, "parameter value");
  chart.y_axis(y, "share of measurements (%)", false);
  draw_bars(chart, band, y, bars, true);
  chart.legend(status_legend(bars));
  plot.svg = chart.svg();
  return plot;
}

}  // namespace evotune::report
