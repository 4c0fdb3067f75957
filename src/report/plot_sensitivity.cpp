// Sensitivity: the ok times of each parameter value as a strip of points over a box plot, on a log axis.
#include <algorithm>
#include <cmath>
#include <limits>

#include "report/chart.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

constexpr std::size_t kMostPoints = 150;  // per value; beyond, evenly spaced ranks stand for the rest
constexpr const char* kBoxFill = "#d6e4f0";
constexpr const char* kBoxStroke = "#4a78a8";
constexpr const char* kPointColour = "#1f4e79";

// Evenly spaced ranks of a sorted sample: its shape, in at most kMostPoints points.
std::vector<double> thinned(const std::vector<double>& sorted) {
  if (sorted.size() <= kMostPoints) return sorted;
  std::vector<double> kept;
  for (std::size_t i = 0; i < kMostPoints; ++i)
    kept.push_back(sorted[i * (sorted.size() - 1) / (kMostPoints - 1)]);
  return kept;
}

void draw_value(Chart& chart, const Scale& y, double centre, double width, const std::string& name,
                const std::vector<double>& times) {
  const double p25 = quantile(times, 0.25), median = quantile(times, 0.5), p75 = quantile(times, 0.75);
  chart.marks().line({centre, y(times.front())}, {centre, y(times.back())}, kBoxStroke);
  chart.marks().rect(centre - width / 2, y(p75), width, y(p25) - y(p75), kBoxFill,
                     name + ": " + std::to_string(times.size()) + " ok, median " + time_text(median) +
                         " µs, p25..p75 " + time_text(p25) + ".." + time_text(p75) + " µs, fastest " +
                         time_text(times.front()) + " µs",
                     kBoxStroke);
  chart.marks().line({centre - width / 2, y(median)}, {centre + width / 2, y(median)}, "#1b3a5c", 2);
  // Jitter by the golden ratio's fractional multiples: spread out, and the same every time.
  const auto points = thinned(times);
  chart.marks().open_group(std::string("fill=\"") + kPointColour + "\" fill-opacity=\"0.4\"");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double offset = std::fmod(static_cast<double>(i) * 0.6180339887498949, 1.0) - 0.5;
    chart.marks().dot({centre + offset * width * 0.8, y(points[i])}, 1.6);
  }
  chart.marks().close_group();
}

}  // namespace

Plot sensitivity(const std::vector<ParameterTimes>& parameters) {
  Plot plot{
      "sensitivity",
      "Per-parameter sensitivity",
      "The median times of the ok configs for each value of each parameter (log scale; other parameters "
      "free): points are configs, the box spans the 25th to 75th percentile with the median as a line, "
      "the whisker the fastest to the slowest. Parameters are ordered by sensitivity: the slowest value's "
      "median time over the fastest value's (the factor after the name).",
      {},
      {}};
  std::vector<Category> categories;
  std::vector<std::pair<std::string, const ValueTimes*>> values;  // "NAME=value" and its times
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto& parameter : parameters) {
    const std::string group = parameter.name + "\n×" + ratio_text(parameter.spread);
    for (const auto& value : parameter.values) {
      categories.push_back({std::to_string(value.value), group});
      values.push_back({parameter.name + "=" + std::to_string(value.value), &value});
      if (value.ok_us.empty()) continue;
      lo = std::min(lo, value.ok_us.front());
      hi = std::max(hi, value.ok_us.back());
    }
  }
  if (hi == 0) {
    plot.note = "No ok measurement yet.";
    return plot;
  }
  Frame frame;
  frame.bottom = 80;
  frame.width = std::max(760.0, frame.left + frame.right + 38.0 * static_cast<double>(categories.size()));
  frame.height = 380;
  Chart chart(plot.title, frame);
  const Band band(categories, chart.left(), chart.right(), 0.3);
  const Scale y = Scale::log(lo / 1.05, hi * 1.05, chart.bottom(), chart.top());
  chart.x_bands(band, "parameter value (× sensitivity)");
  chart.y_axis(y, "median time of ok configs (µs, log scale)");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, value] = values[i];
    if (!value->ok_us.empty()) draw_value(chart, y, band.centre(i), band.width(), name, value->ok_us);
  }
  plot.svg = chart.svg();
  return plot;
}

}  // namespace evotune::report
