// Evolve: a generational genetic algorithm over configs that starts from the database's best results.
#pragma once

#include "strategy/config_moves.hpp"
#include "strategy/known_configs.hpp"
#include "strategy/strategy.hpp"

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
// against an ok one and are the first to leave the population.
class EvolveStrategy : public Strategy {
 public:
  EvolveStrategy(const StrategyInput& input, EvolveSettings settings);
  std::optional<Config> next() override;
  void observe(const Config& config, const Outcome& outcome) override;
  std::string describe_start() const override { return start_line_; }

 private:
  void select_survivors();
  void breed();
  std::optional<Genome> draw_child();
  const Scored& tournament();

  KnownConfigs known_;
  EvolveSettings settings_;
  SeededRng rng_;
  std::size_t population_size_ = 0;
  std::vector<Scored> population_;
  std::vector<Genome> generation_;  // this generation's proposals, in proposal order
  std::vector<Scored> met_;         // known configs bred this generation: they join the selection
  std::set<Genome> in_flight_;
  std::size_t cursor_ = 0;
  Fitness best_at_start_;  // the best known when the generation began
  int stale_ = 0;
  bool done_ = false;
  std::string start_line_;
};

std::unique_ptr<Strategy> make_evolve(StrategyInput input);

}  // namespace evotune
