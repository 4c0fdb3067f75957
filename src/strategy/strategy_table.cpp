// The strategy table: every strategy's name, description and factory.
#include "strategy/strategy_table.hpp"

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "strategy/anneal_strategy.hpp"
#include "strategy/evolve_strategy.hpp"
#include "strategy/list_strategy.hpp"

namespace evotune {
namespace {

constexpr std::array kStrategies{
    StrategyEntry{.name = "exhaustive",
                  .description = "every valid config, in the space's enumeration order",
                  .make = make_exhaustive,
                  .benchmarked = false},
    StrategyEntry{.name = "random",
                  .description = "every valid config, in an order shuffled by --seed",
                  .make = make_random},
    StrategyEntry{.name = "evolve",
                  .description = "genetic algorithm, seeded from the best stored results",
                  .make = make_evolve},
    StrategyEntry{.name = "anneal",
                  .description = "simulated annealing in parallel chains, restarting from the best known",
                  .make = make_anneal},
};

}  // namespace

std::span<const StrategyEntry> strategy_table() { return kStrategies; }

const StrategyEntry& find_strategy(std::string_view name) {
  const auto it = std::find_if(kStrategies.begin(), kStrategies.end(),
                               [&](const StrategyEntry& entry) { return entry.name == name; });
  if (it != kStrategies.end()) return *it;
  std::string known;
  for (const auto& entry : kStrategies) known += (known.empty() ? "" : ", ") + std::string(entry.name);
  throw Error("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, StrategyInput input) {
  return find_strategy(name).make(std::move(input));
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const auto& entry : kStrategies) list.emplace_back(entry.name);
    return list;
  }();
  return names;
}

}  // namespace evotune
