// Anneal: simulated annealing in several chains at once, started from the database's best results.
#pragma once

#include "strategy/round_strategy.hpp"

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
class AnnealStrategy final : public RoundStrategy {
 public:
  AnnealStrategy(const StrategyInput& input, AnnealSettings settings);

 private:
  struct Chain {
    std::optional<Scored> current;  // none until the starting config is observed
    Fitness best;
    int stale = 0;
    double temperature = 0;
    std::optional<Genome> proposal;  // this round's
  };

  // Every chain moves: it settles its proposal's outcome; a chain far behind the best restarts.
  void finish_round(const std::vector<Genome>& round) override;
  // One proposal for each chain that has none: a step from where it stands.
  std::vector<Genome> plan_round() override;
  // A step of `chain` to a config that is neither known nor in `round`; known configs on the way settle.
  std::optional<Genome> step(Chain& chain, const std::vector<Genome>& round);
  void settle(Chain& chain, const Genome& genome, const Fitness& fitness);
  void restart(Chain& chain);

  AnnealSettings settings_;
  std::vector<Chain> chains_;
};

std::unique_ptr<Strategy> make_anneal(StrategyInput input);

}  // namespace evotune
