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

// A chart of one stacked bar per category, statuses bottom-up in their declared order (ok at the bottom).
// share: heights are percentages of the bar's total; else counts.
struct StackedBars {
  std::string title, x_title;
  std::vector<Category> categories;
  std::vector<std::string> names;  // each bar's name in its tooltips
  std::vector<Counts> bars;
  bool share = false;
  double slot_width = 30, min_width = 760, padding = 0.25;
};

std::string stacked_bars_svg(const StackedBars& spec) {
  int highest = 0;
  for (const auto& bar : spec.bars) highest = std::max(highest, total(bar));
  Frame frame;
  frame.right = 150;
  frame.bottom = 70;
  frame.width = std::max(spec.min_width,
                         frame.left + frame.right + spec.slot_width * static_cast<double>(spec.bars.size()));
  Chart chart(spec.title, frame);
  const Band band(spec.categories, chart.left(), chart.right(), spec.padding);
  const Scale y = Scale::linear(0, spec.share ? 100 : highest * 1.05, chart.bottom(), chart.top());
  chart.x_bands(band, spec.x_title);
  chart.y_axis(y, spec.share ? "share of measurements (%)" : "measurements", !spec.share);
  for (std::size_t i = 0; i < spec.bars.size(); ++i) {
    const int sum = total(spec.bars[i]);
    const std::string& name = spec.names[i];
    double stacked = 0;
    for (const auto& [status, n] : spec.bars[i]) {
      const double height = spec.share ? 100.0 * n / sum : n;
      const double top = y(stacked + height), bottom = y(stacked);
      chart.marks().rect(band.centre(i) - band.width() / 2, top, band.width(), bottom - top,
                         status_colour(status),
                         name + ": " + std::string(to_string(status)) + " " + std::to_string(n) + " of " +
                             std::to_string(sum) + " (" + percent_text(static_cast<double>(n) / sum) + ")");
      stacked += height;
    }
  }
  chart.legend(status_legend(spec.bars));
  return chart.svg();
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
  std::vector<std::string> names;
  std::vector<Counts> bars;
  for (const auto& run : data.runs) {
    Counts counts;
    for (const auto& row : data.measurements)
      if (row.run_id == run.id) ++counts[row.result.status];
    if (counts.empty()) continue;
    categories.push_back({"run " + std::to_string(run.id), run.strategy});
    names.push_back("run " + std::to_string(run.id) + " (" + run.strategy + ")");
    bars.push_back(std::move(counts));
  }
  if (bars.empty()) {
    plot.note = "No run stored a measurement of this problem.";
    return plot;
  }
  plot.svg = stacked_bars_svg({plot.title, "run (grouped by strategy)", std::move(categories),
                               std::move(names), std::move(bars), false, 70, 520, 0.35});
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
  std::vector<std::string> names;
  std::vector<Counts> bars;
  for (const auto& parameter : parameters) {
    for (const auto& value : parameter.values) {
      if (value.statuses.empty()) continue;
      categories.push_back({std::to_string(value.value), parameter.name});
      names.push_back(parameter.name + "=" + std::to_string(value.value));
      bars.push_back(value.statuses);
    }
  }
  if (bars.empty()) {
    plot.note = "No measurements.";
    return plot;
  }
  plot.svg = stacked_bars_svg({plot.title, "parameter value", std::move(categories), std::move(names),
                               std::move(bars), true, 30, 760, 0.25});
  return plot;
}

}  // namespace evotune::report
