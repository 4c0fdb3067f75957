// The pair heatmap: the fastest ok time of every combination of two parameters' values.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "report/heatmap.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

const ReportParameter& find_parameter(const ReportData& data, const std::string& name) {
  for (const auto& parameter : data.parameters)
    if (parameter.name == name) return parameter;
  throw Error("internal: no parameter " + name);
}

}  // namespace

Plot pair_heatmap(const ReportData& data, const std::string& x_parameter, const std::string& y_parameter) {
  Plot plot{
      "pair-heatmap",
      "Best time by " + x_parameter + " and " + y_parameter,
      "The fastest ok median for each combination of " + x_parameter + " and " + y_parameter +
          " (the other parameters free); darker is faster, grey: no ok config measured with that "
          "combination. The default pair is the two most sensitive parameters; --pair A,B picks another.",
      {},
      {}};
  const ReportParameter& px = find_parameter(data, x_parameter);
  const ReportParameter& py = find_parameter(data, y_parameter);
  std::map<std::pair<ParamValue, ParamValue>, double> best;
  for (const auto& row : data.measurements) {
    if (row.result.status != Status::ok || !row.result.timing) continue;
    const auto x = row.result.params.find(x_parameter), y = row.result.params.find(y_parameter);
    if (x == row.result.params.end() || y == row.result.params.end()) continue;
    const auto [it, fresh] = best.try_emplace({x->second, y->second}, row.result.timing->median_us);
    if (!fresh) it->second = std::min(it->second, row.result.timing->median_us);
  }
  if (best.empty()) {
    plot.note = "No ok measurement yet.";
    return plot;
  }
  double lo = best.begin()->second, hi = lo;
  for (const auto& [key, us] : best) {
    lo = std::min(lo, us);
    hi = std::max(hi, us);
  }
  const auto ramp = [&](double us) { return hi > lo ? std::log(us / lo) / std::log(hi / lo) : 0.0; };

  Heatmap heatmap{plot.title, x_parameter, y_parameter, {}, {}, {}, {}, 64};
  for (const auto value : px.values) heatmap.columns.push_back(std::to_string(value));
  for (const auto value : py.values) heatmap.rows.push_back(std::to_string(value));
  for (std::size_t c = 0; c < px.values.size(); ++c) {
    for (std::size_t r = 0; r < py.values.size(); ++r) {
      const std::string where = x_parameter + "=" + std::to_string(px.values[c]) + ", " + y_parameter + "=" +
                                std::to_string(py.values[r]);
      const auto found = best.find({px.values[c], py.values[r]});
      if (found == best.end()) {
        heatmap.cells.push_back({c, r, std::nullopt, "", where + ": no ok config measured"});
        continue;
      }
      const std::string time = time_text(found->second);
      heatmap.cells.push_back({c, r, ramp(found->second), time, where + ": best " + time + " µs"});
    }
  }
  for (int step = 0; step <= 4; ++step)
    heatmap.legend.push_back(time_text(lo * std::pow(hi / lo, step / 4.0)) + " µs");
  plot.svg = heatmap_svg(heatmap);
  return plot;
}

}  // namespace evotune::report
