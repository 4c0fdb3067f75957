// Anneal: simulated annealing in several chains at once, started from the database's best results.
#pragma once

#include "strategy/config_moves.hpp"
#include "strategy/known_configs.hpp"
#include "strategy/strategy.hpp"

namespace evotune {

struct AnnealSettings {
  std::size_t chains = 8;           // fewer when the space is tiny; each has one proposal in flight
  double start_temperature = 0.03;  // a 3% slower neighbour is accepted with chance 1/e at the start
  double cooling = 0.85;            // temperature factor per chain step
  double min_temperature = 0.002;
  double resample_gap = 0.05;  // a chain whose config is this much slower than the best known restarts
  int restart_after = 8;       // chain steps without a better chain best before a restart
  MutationRates move{.gene = 0.08, .jump = 0.1};  // mostly one gene to a neighbouring value
  double avoid_failures = 0.9;  // times the failed share of a step's known neighbours: chance to step again
  int patience = 16;  // rounds (one proposal per chain) without a better best before the search ends
};

// Each chain walks from config to neighbouring config (mutate, repaired to a valid candidate) and accepts a
// slower one with chance exp(-relative slow-down / temperature); a failed config is never accepted. Chains
// propose in rounds: one config each, the next round once all are observed, so the proposals depend only on
// the seed and the outcomes. A step onto a known config (stored, or observed) is taken without measuring it.
// A chain restarts from one of the best configs known when it stops improving or falls behind the best
// (population annealing, simply). Half of the chains (at most) start from the fastest stored configs, the
// others from spread-out random candidates.
class AnnealStrategy : public Strategy {
 public:
  AnnealStrategy(const StrategyInput& input, AnnealSettings settings);
  std::optional<Config> next() override;
  void observe(const Config& config, const Outcome& outcome) override;
  std::string describe_start() const override { return start_line_; }

 private:
  struct Chain {
    std::optional<Scored> current;  // none until the starting config is observed
    Fitness best;
    int stale = 0;
    double temperature = 0;
    std::optional<Genome> proposal;  // this round's
  };

  void finish_round();
  void plan_round();
  std::optional<Genome> step(Chain& chain);
  void settle(Chain& chain, const Genome& genome, const Fitness& fitness);
  void restart(Chain& chain);

  KnownConfigs known_;
  AnnealSettings settings_;
  SeededRng rng_;
  std::vector<Chain> chains_;
  std::vector<Genome> round_;  // this round's proposals, in proposal order
  std::set<Genome> in_flight_;
  std::size_t cursor_ = 0;
  int stale_rounds_ = 0;
  Fitness best_before_round_;
  bool done_ = false;
  std::string start_line_;
};

std::unique_ptr<Strategy> make_anneal(StrategyInput input);

}  // namespace evotune
