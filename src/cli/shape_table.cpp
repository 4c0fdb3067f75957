// Building and printing the problem-by-config table.
#include "cli/shape_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace evotune::cli {

ShapeTable shape_table(const std::vector<ProblemTime>& times, const std::vector<Sizes>& problems) {
  ShapeTable table;
  table.problems = problems;
  std::vector<const ProblemTime*> best(problems.size(), nullptr);
  for (const ProblemTime& time : times) {
    const auto at = std::find(problems.begin(), problems.end(), time.problem);
    if (at == problems.end()) continue;
    const ProblemTime*& slot = best[static_cast<std::size_t>(at - problems.begin())];
    if (!slot || time.median_us < slot->median_us) slot = &time;
  }
  for (const ProblemTime* time : best) {
    if (!time ||
        std::find(table.configs.begin(), table.configs.end(), time->config_id) != table.configs.end())
      continue;
    table.configs.push_back(time->config_id);
    table.params.push_back(time->params);
  }
  table.times.assign(problems.size(), std::vector<std::optional<double>>(table.configs.size()));
  for (const ProblemTime& time : times) {
    const auto row = std::find(problems.begin(), problems.end(), time.problem);
    const auto column = std::find(table.configs.begin(), table.configs.end(), time.config_id);
    if (row == problems.end() || column == table.configs.end()) continue;
    table.times[static_cast<std::size_t>(row - problems.begin())]
               [static_cast<std::size_t>(column - table.configs.begin())] = time.median_us;
  }
  for (std::size_t p = 0; p < problems.size(); ++p) {
    table.fastest.push_back(std::nullopt);
    if (!best[p]) continue;
    const auto column = std::find(table.configs.begin(), table.configs.end(), best[p]->config_id);
    table.fastest.back() = static_cast<std::size_t>(column - table.configs.begin());
  }
  return table;
}

void print_shape_table(const ShapeTable& table, std::FILE* out) {
  std::size_t width = 7;  // "problem"
  for (const Sizes& problem : table.problems) width = std::max(width, key_value_text(problem).size());
  std::fprintf(out, "%-*s", static_cast<int>(width), "problem");
  for (const std::int64_t config : table.configs)
    std::fprintf(out, "  %11s", ("#" + std::to_string(config)).c_str());
  std::fprintf(out, "\n");
  for (std::size_t p = 0; p < table.problems.size(); ++p) {
    std::fprintf(out, "%-*s", static_cast<int>(width), key_value_text(table.problems[p]).c_str());
    for (std::size_t c = 0; c < table.configs.size(); ++c) {
      const auto& time = table.times[p][c];
      std::string cell = time ? fmt::format("{:.2f}", *time) : "-";
      if (table.fastest[p] == c) cell += "*";
      std::fprintf(out, "  %11s", cell.c_str());
    }
    if (!table.fastest[p]) std::fprintf(out, "  (no ok result)");
    std::fprintf(out, "\n");
  }
  for (std::size_t c = 0; c < table.configs.size(); ++c)
    std::fprintf(out, "#%lld: %s\n", static_cast<long long>(table.configs[c]),
                 canonical_json(table.params[c]).c_str());
}

nlohmann::json shape_table_json(const ShapeTable& table) {
  nlohmann::json configs = nlohmann::json::array();
  for (std::size_t c = 0; c < table.configs.size(); ++c)
    configs.push_back({{"config_id", table.configs[c]},
                       {"params", nlohmann::json::parse(canonical_json(table.params[c]))}});
  nlohmann::json problems = nlohmann::json::array();
  for (std::size_t p = 0; p < table.problems.size(); ++p) {
    nlohmann::json times = nlohmann::json::array();
    for (const auto& time : table.times[p]) times.push_back(time ? nlohmann::json(*time) : nlohmann::json());
    problems.push_back({{"problem", table.problems[p]},
                        {"best_config_id", table.fastest[p] ? nlohmann::json(table.configs[*table.fastest[p]])
                                                            : nlohmann::json()},
                        {"times_us", times}});
  }
  return {{"configs", configs}, {"problems", problems}};
}

}  // namespace evotune::cli
