// The strategies by name: the one list that `tune`, `bench-strategies` and --help read.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strategy/strategy.hpp"

namespace evotune {

struct StrategyEntry {
  std::string_view name;
  std::string_view description;  // one line, for --help
  std::unique_ptr<Strategy> (*make)(StrategyInput input);
  // bench-strategies runs it when not told which: exhaustive's count depends only on the enumeration order.
  bool benchmarked = true;
};

std::span<const StrategyEntry> strategy_table();

// The entry called `name`; Error naming the known strategies for another name.
const StrategyEntry& find_strategy(std::string_view name);

std::unique_ptr<Strategy> make_strategy(std::string_view name, StrategyInput input);

// The table's names, in its order.
const std::vector<std::string>& strategy_names();

}  // namespace evotune
