// Exhaustive walks the candidates in enumeration order; random walks a seeded permutation of them.
#include "strategy/list_strategy.hpp"

#include "strategy/seeded_rng.hpp"

namespace evotune {

ListStrategy::ListStrategy(StrategyInput input)
    : order_(std::move(input.candidates)), already_measured_(std::move(input.already_measured)) {}

std::optional<Config> ListStrategy::next() {
  while (position_ < order_.size()) {
    const Config& config = order_[position_++];
    if (!already_measured_.contains(canonical_json(config))) return config;
  }
  return std::nullopt;
}

std::unique_ptr<Strategy> make_exhaustive(StrategyInput input) {
  return std::make_unique<ListStrategy>(std::move(input));
}

std::unique_ptr<Strategy> make_random(StrategyInput input) {
  SeededRng rng(input.seed);
  rng.shuffle(input.candidates);
  return std::make_unique<ListStrategy>(std::move(input));
}

}  // namespace evotune
