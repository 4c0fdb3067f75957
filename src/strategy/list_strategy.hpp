// Exhaustive and random search: both walk a fixed list of the candidates not yet measured.
#pragma once

#include "strategy/strategy.hpp"

namespace evotune {

// Proposes the candidates in order, skipping the already measured ones. Random search is this strategy
// over a seeded shuffle of the candidates.
class ListStrategy : public Strategy {
 public:
  explicit ListStrategy(StrategyInput input);
  std::optional<Config> next() override;

 private:
  std::vector<Config> order_;
  std::set<std::string> already_measured_;
  std::size_t position_ = 0;
};

std::unique_ptr<Strategy> make_exhaustive(StrategyInput input);
std::unique_ptr<Strategy> make_random(StrategyInput input);

}  // namespace evotune
