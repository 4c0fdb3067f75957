// Best-so-far plots: a step line per run, on a log time axis, with the reference kernel's time where known.
#include <algorithm>
#include <limits>

#include "report/chart.hpp"
#include "report/palette.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

// How far beyond the curves' range the reference may lie and still be drawn to scale.
constexpr double kReferenceReach = 2;

Plot convergence(const ReportData& data, bool by_time) {
  Plot plot;
  plot.id = by_time ? "convergence-time" : "convergence-evaluations";
  plot.title = by_time ? "Best so far against wall time" : "Best so far against evaluations";
  plot.caption =
      std::string("The fastest ok median each run had found so far, against ") +
      (by_time ? "seconds since the run started (compiles, validation and timing included)"
               : "the measurements it stored (failures count too)") +
      ". Configs an earlier run measured are not measured again, so each run's curve holds only its own "
      "measurements. " +
      (data.reference_us
           ? "The dashed line is the reference kernel's time (written at the axis's edge instead "
             "when it lies more than twice beyond the curves, so that they keep the axis)."
           : "The database holds no reference-kernel time, so no reference line is drawn.") +
      (data.baseline ? " The red dashed line is the library baseline (" + data.baseline->library +
                           ", its best algorithm, re-timed in the rerank's rounds where there was one)."
                     : "");
  const auto curves = best_so_far(data);
  if (curves.empty()) {
    plot.note = "No ok measurement yet.";
    return plot;
  }
  double max_x = 0, lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto& curve : curves) {
    for (const auto& point : curve.points) {
      max_x = std::max(max_x, by_time ? point.seconds : point.evaluations);
      lo = std::min(lo, point.best_us);
      hi = std::max(hi, point.best_us);
    }
  }
  // A reference far from the curves (a naive kernel at 1750 µs against a best of 36 µs) would squash them
  // into a sliver of the log axis: it is then written at the axis's edge instead of drawn to scale.
  const bool reference_on_scale = data.reference_us && *data.reference_us <= hi * kReferenceReach &&
                                  *data.reference_us >= lo / kReferenceReach;
  if (reference_on_scale) {
    lo = std::min(lo, *data.reference_us);
    hi = std::max(hi, *data.reference_us);
  }
  // The library baseline is what the search is measured against: always on the axis.
  const double baseline_us = data.baseline ? comparable_us(*data.baseline, true) : 0;
  if (data.baseline) {
    lo = std::min(lo, baseline_us);
    hi = std::max(hi, baseline_us);
  }
  Frame frame;
  frame.right = 210;
  Chart chart(plot.title, frame);
  const Scale x = Scale::linear(0, max_x > 0 ? max_x : 1, chart.left(), chart.right());
  const Scale y = Scale::log(lo / 1.04, hi * 1.04, chart.bottom(), chart.top());
  chart.x_axis(x, by_time ? "seconds since the run started" : "evaluations (measurements the run stored)");
  chart.y_axis(y, "best median so far (µs, log scale)");

  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const auto& points = curves[i].points;
    std::vector<Point> line;
    for (std::size_t k = 0; k < points.size(); ++k) {
      const double px = x(by_time ? points[k].seconds : points[k].evaluations);
      if (k > 0 && points[k].best_us != points[k - 1].best_us) line.push_back({px, y(points[k - 1].best_us)});
      if (k == 0 || points[k].best_us != points[k - 1].best_us || k + 1 == points.size())
        line.push_back({px, y(points[k].best_us)});
    }
    const std::string colour = series_colour(i);
    chart.marks().polyline(line, colour, 2);
    const std::string label = run_label(*curves[i].run);
    chart.marks().circle(line.back(), 3.5, colour, 1,
                         label + ": best " + time_text(points.back().best_us) + " µs after " +
                             fixed(points.back().evaluations, 0) + " evaluations");
    chart.marks().text({line.back().x - 4, line.back().y - 6}, time_text(points.back().best_us), Anchor::end,
                       colour);
    legend.push_back({label, colour, LegendEntry::Mark::line});
  }
  if (reference_on_scale) {
    const double ref_y = y(*data.reference_us);
    chart.marks().line({chart.left(), ref_y}, {chart.right(), ref_y}, "#555555", 1.5, true);
    legend.push_back(
        {"reference " + time_text(*data.reference_us) + " µs", "#555555", LegendEntry::Mark::dashed_line});
  } else if (data.reference_us) {
    const bool above = *data.reference_us > hi;
    const std::string text = "reference kernel " + time_text(*data.reference_us) + " µs (" +
                             ratio_text(*data.reference_us / lo) + "× the best), " +
                             (above ? "above" : "below") + " this axis";
    chart.marks().text({chart.right() - 4, above ? chart.top() + 12 : chart.bottom() - 6}, text, Anchor::end,
                       "#555555");
    legend.push_back({"reference " + time_text(*data.reference_us) + " µs (" + (above ? "above)" : "below)"),
                      "#555555", LegendEntry::Mark::dashed_line});
  }
  if (data.baseline) {
    const double base_y = y(baseline_us);
    const std::string label = data.baseline->library + " " + time_text(baseline_us) + " µs";
    chart.marks().line({chart.left(), base_y}, {chart.right(), base_y}, "#b03a2e", 1.5, true);
    chart.marks().text({chart.left() + 4, base_y - 4}, label, Anchor::start, "#b03a2e");
    legend.push_back({label, "#b03a2e", LegendEntry::Mark::dashed_line});
  }
  chart.legend(legend);
  plot.svg = chart.svg();
  return plot;
}

}  // namespace

Plot convergence_by_evaluations(const ReportData& data) { return convergence(data, false); }
Plot convergence_by_time(const ReportData& data) { return convergence(data, true); }

}  // namespace evotune::report
