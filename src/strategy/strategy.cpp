// The strategy registry: names the CLI accepts.
#include "strategy/strategy.hpp"

#include "core/error.hpp"
#include "strategy/anneal_strategy.hpp"
#include "strategy/evolve_strategy.hpp"
#include "strategy/list_strategy.hpp"

namespace evotune {

std::optional<double> objective(const Outcome& outcome) {
  if (outcome.status != Status::ok || !outcome.timing) return std::nullopt;
  return outcome.timing->median_us;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"exhaustive", "random", "evolve", "anneal"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyInput input) {
  if (name == "exhaustive") return make_exhaustive(std::move(input));
  if (name == "random") return make_random(std::move(input));
  if (name == "evolve") return make_evolve(std::move(input));
  if (name == "anneal") return make_anneal(std::move(input));
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown strategy '" + name + "' (known: " + known + ")");
}

}  // namespace evotune
