// The top-K plot: the fastest configs' medians with their p20..p80 spread.
#include <algorithm>
#include <limits>

#include "report/chart.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {

Plot top_configs(const ReportData& data, int top_k) {
  Plot plot{
      "top-configs",
      "The " + std::to_string(top_k) + " fastest configs",
      "The fastest ok configs, fastest at the top: the dot is the median of the timed launches, the bar "
      "spans the 20th to the 80th percentile. Where bars overlap, the order between those configs is "
      "within the timing noise. Their parameters are in the table below.",
      {},
      {}};
  auto ranked = ranked_ok(data);
  if (ranked.size() > static_cast<std::size_t>(top_k)) ranked.resize(static_cast<std::size_t>(top_k));
  if (ranked.empty()) {
    plot.note = "No ok measurement yet.";
    return plot;
  }
  double lo = std::numeric_limits<double>::max(), hi = 0;
  std::vector<Category> rows;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const TimingStats& timing = *ranked[i]->result.timing;
    lo = std::min({lo, timing.p20_us, timing.median_us});
    hi = std::max({hi, timing.p80_us, timing.median_us});
    rows.push_back(
        {"#" + std::to_string(i + 1) + " (config " + std::to_string(ranked[i]->result.config_id) + ")", ""});
  }
  Frame frame;
  frame.left = 130;
  frame.height = frame.top + frame.bottom + 24.0 * static_cast<double>(rows.size());
  Chart chart(plot.title, frame);
  const auto [from, to] = padded(lo, hi, 0.05);
  const Scale x = Scale::linear(from, to, chart.left(), chart.right());
  const Band y(rows, chart.top(), chart.bottom(), 0.3);
  chart.x_axis(x, "time (µs): median, p20..p80");
  chart.y_bands(y, "rank");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const TimingStats& timing = *ranked[i]->result.timing;
    const double row_y = y.centre(i);
    chart.marks().line({x(timing.p20_us), row_y}, {x(timing.p80_us), row_y}, "#9ecae1", 6);
    chart.marks().circle({x(timing.median_us), row_y}, 3.5, "#08519c", 1,
                         rows[i].label + ": median " + time_text(timing.median_us) + " µs, p20..p80 " +
                             time_text(timing.p20_us) + ".." + time_text(timing.p80_us) + " µs; " +
                             key_value_text(ranked[i]->result.params, ' '));
  }
  plot.svg = chart.svg();
  return plot;
}

}  // namespace evotune::report
