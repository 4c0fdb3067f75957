// `best` over several problems: each problem's time for each of the problems' fastest configs.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "store/store.hpp"

namespace evotune::cli {

struct ShapeTable {
  std::vector<Sizes> problems;
  std::vector<std::int64_t> configs;  // each problem's fastest config, in the problems' order, each once
  std::vector<Config> params;         // of configs
  // times[p][c]: the median of configs[c] on problems[p]; nullopt when it has no ok result there.
  std::vector<std::vector<std::optional<double>>> times;
  std::vector<std::optional<std::size_t>> fastest;  // per problem: the column of its fastest config
};

ShapeTable shape_table(const std::vector<ProblemTime>& times, const std::vector<Sizes>& problems);
// One row per problem: the sizes, then each column's time (- when not measured), the fastest marked *.
void print_shape_table(const ShapeTable& table, std::FILE* out);
// {"configs": [{"config_id", "params"}], "problems": [{"problem", "best_config_id", "times_us": [...]}]}
nlohmann::json shape_table_json(const ShapeTable& table);

}  // namespace evotune::cli
