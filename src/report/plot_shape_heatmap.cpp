// The shape-by-config heatmap: each config's slowdown on every problem of the space version.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/heatmap.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

constexpr std::size_t kMostColumns = 16;
constexpr double kRampTop = 4;  // slowdowns from 1 to this span the colour ramp; beyond, the top colour

struct ConfigSlowdowns {
  std::int64_t config_id = 0;
  Config params;
  std::map<std::size_t, double> by_problem;  // problem index -> time over that problem's best
  double log_mean = 0;                       // mean log slowdown over the problems measured
};

}  // namespace

Plot shape_slowdown(const ReportData& data) {
  Plot plot{
      "shape-slowdown",
      "Slowdown by problem and config",
      "Each config's median time on each problem of this space version over the fastest time measured on "
      "that problem (1.00: the fastest there). Columns: the configs measured ok on the most problems, "
      "lowest geometric-mean slowdown first (hover a cell for its parameters; `evotune show ID` for more). "
      "Grey: not measured ok on that problem.",
      {},
      {}};
  std::map<Sizes, double> best;
  for (const auto& time : data.problem_times) {
    const auto [it, fresh] = best.try_emplace(time.problem, time.median_us);
    if (!fresh) it->second = std::min(it->second, time.median_us);
  }
  if (best.size() < 2) {
    plot.note = "Only one problem of this space version has ok results; tune another (--problem) to compare.";
    return plot;
  }
  std::map<Sizes, std::size_t> row_of;
  for (const auto& [problem, us] : best) row_of.emplace(problem, row_of.size());
  std::map<std::int64_t, ConfigSlowdowns> configs;
  for (const auto& time : data.problem_times) {
    ConfigSlowdowns& config = configs[time.config_id];
    config.config_id = time.config_id;
    config.params = time.params;
    config.by_problem[row_of.at(time.problem)] = time.median_us / best.at(time.problem);
  }
  std::vector<ConfigSlowdowns> chosen;
  for (auto& [id, config] : configs) {
    for (const auto& [row, slowdown] : config.by_problem) config.log_mean += std::log(slowdown);
    config.log_mean /= static_cast<double>(config.by_problem.size());
    chosen.push_back(std::move(config));
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const ConfigSlowdowns& a, const ConfigSlowdowns& b) {
    if (a.by_problem.size() != b.by_problem.size()) return a.by_problem.size() > b.by_problem.size();
    return a.log_mean < b.log_mean;
  });
  if (chosen.size() > kMostColumns) chosen.resize(kMostColumns);

  Heatmap heatmap{
      plot.title, "config id", "problem", {}, {}, {}, {"×1.00", "×1.41", "×2.00", "×2.83", "×4 or more"}, 46};
  for (const auto& config : chosen) heatmap.columns.push_back(std::to_string(config.config_id));
  for (const auto& [problem, row] : row_of) heatmap.rows.push_back(key_value_text(problem));
  for (std::size_t c = 0; c < chosen.size(); ++c) {
    const std::string config = "config " + heatmap.columns[c] + " (" + key_value_text(chosen[c].params) + ")";
    for (std::size_t r = 0; r < heatmap.rows.size(); ++r) {
      const std::string where = config + " on " + heatmap.rows[r];
      const auto found = chosen[c].by_problem.find(r);
      if (found == chosen[c].by_problem.end()) {
        heatmap.cells.push_back({c, r, std::nullopt, "", where + ": not measured ok"});
        continue;
      }
      const double t = std::log(found->second) / std::log(kRampTop);
      heatmap.cells.push_back(
          {c, r, std::min(t, 1.0), ratio_text(found->second), where + ": ×" + ratio_text(found->second)});
    }
  }
  plot.svg = heatmap_svg(heatmap);
  return plot;
}

}  // namespace evotune::report
