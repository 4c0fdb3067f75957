// RoundStrategy: the common shape of the population strategies (evolve, anneal): propose a round of configs
// one at a time, wait until every outcome of the round is in, then plan the next round.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "strategy/config_moves.hpp"
#include "strategy/known_configs.hpp"
#include "strategy/seeded_rng.hpp"
#include "strategy/strategy.hpp"

namespace evotune {

// Rounds make the proposals depend only on the seed and the outcomes, not on the order outcomes arrive in.
// The search ends after `patience` rounds without a better best known, when every candidate is taken, or
// when a round plans no config.
class RoundStrategy : public Strategy {
 public:
  std::optional<Config> next() final;
  void observe(const Config& config, const Outcome& outcome) final;
  std::string describe_start() const final { return start_line_; }

 protected:
  // patience > 0 overrides default_patience.
  RoundStrategy(const StrategyInput& input, int default_patience);
  // The first round and the log line on how the search started; called once, by the constructor.
  void begin(std::vector<Genome> first_round, std::string start_line);

  // Once every outcome of `round` is in (they are in known_): learn from them.
  virtual void finish_round(const std::vector<Genome>& round) = 0;
  // The next round's proposals, in proposal order (none known or taken); empty: the search is over.
  virtual std::vector<Genome> plan_round() = 0;

  KnownConfigs known_;
  SeededRng rng_;

 private:
  Objective objective_;
  int patience_;
  std::vector<Genome> round_;  // this round's proposals, in proposal order
  std::size_t cursor_ = 0;     // the next of round_ to propose
  std::set<Genome> in_flight_;
  Fitness best_before_round_;
  int stale_rounds_ = 0;
  bool done_ = false;
  std::string start_line_;
};

}  // namespace evotune
