// Evolve: a generational genetic algorithm over configs that starts from the database's best results.
#pragma once

#include "strategy/round_strategy.hpp"

namespace evotune {

struct EvolveSettings {
  std::size_t population = 16;   // fewer when the space is tiny
  std::size_t offspring = 8;     // new configs per generation: the proposals in flight at once
  std::size_t first_random = 8;  // random configs in the first generation (beside the seeded ones)
  std::size_t tournament = 4;    // members drawn per selection; the fittest wins
  double crossover = 0.9;        // chance a child has two parents
  MutationRates mutation{.gene = 0.1, .jump = 0.1};
  double avoid_failures = 0.9;  // times the failed share of a child's known neighbours: chance to draw again
  int patience = 16;  // generations without a better best before the search ends (input.patience overrides)
};

// A (mu + lambda) genetic algorithm. The first population is the fastest stored configs (up to half) plus
// spread-out random candidates; each generation breeds `offspring` new configs by tournament
// selection, uniform crossover and neighbour mutation, repaired to valid candidates. Configs already known
// (stored, or observed in this run) are never proposed: a child that is one joins the selection with its
// known fitness and another child is drawn. Failed configs are the worst: they never win a tournament
// against an ok one and are the first to leave the population. A generation is a round: the next one is
// bred once all of its outcomes are in.
class EvolveStrategy final : public RoundStrategy {
 public:
  EvolveStrategy(const StrategyInput& input, EvolveSettings settings);

 private:
  // Selects the survivors among the population, the generation and the known configs bred for it.
  void finish_round(const std::vector<Genome>& generation) override;
  // Breeds the next generation.
  std::vector<Genome> plan_round() override;
  std::optional<Genome> draw_child();
  const Scored& tournament();

  EvolveSettings settings_;
  std::size_t population_size_ = 0;
  std::vector<Scored> population_;
  std::vector<Scored> met_;  // known configs bred this generation: they join the selection
};

std::unique_ptr<Strategy> make_evolve(StrategyInput input);

}  // namespace evotune
