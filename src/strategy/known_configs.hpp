// What a learning strategy knows: each config's stored or observed fitness, and which configs it may not
// propose.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "strategy/config_moves.hpp"
#include "strategy/strategy.hpp"

namespace evotune {

// objective_value() of a config (its time in us, energy in uJ or their product); nullopt for a failed config
// (the worst).
using Fitness = std::optional<double>;

// true when a is strictly better than b: a lower value, or ok against failed.
bool better(const Fitness& a, const Fitness& b);

struct Scored {
  Genome genome;
  Fitness fitness;
};

// Bookkeeping over a ParamGrid's configs: stored and observed fitness, configs taken (measured before,
// proposed or observed in this run: never to be proposed), and the best fitness known.
class KnownConfigs {
 public:
  // Builds the grid from input, records input.history's fitness (the first record of a config wins: ok
  // ones come first, fastest first) and takes every config of input.history and input.already_measured.
  explicit KnownConfigs(const StrategyInput& input);

  const ParamGrid& grid() const { return grid_; }

  // nullptr when the fitness of genome is not known (never measured, or in flight).
  const Fitness* fitness(const Genome& genome) const;
  bool taken(const Genome& genome) const { return taken_.contains(genome); }
  // Marks a config as proposed.
  void take(const Genome& genome);
  // The observed fitness of a proposed config; takes it too.
  void record(const Genome& genome, Fitness fitness);
  // Valid candidates not yet taken.
  std::size_t untaken_count() const { return untaken_; }
  std::vector<Genome> untaken() const;
  // The best fitness known so far (nullopt: nothing ok known).
  const Fitness& best() const { return best_; }
  // The share of failures among the known configs one neighbour step from genome; 0 when none is known.
  double failed_share_nearby(const Genome& genome) const;
  // Up to limit valid configs with an ok fitness, fastest first (ties in the order they became known).
  std::vector<Scored> fastest(std::size_t limit) const;
  // Up to limit of input.seeds, then input.transferred, that are valid candidates here and not taken, in
  // their order.
  std::vector<Genome> transferred(std::size_t limit) const;
  // How many of `genomes` are the space's seeds (for a strategy's start line).
  std::size_t seeds_among(const std::vector<Genome>& genomes) const;

 private:
  ParamGrid grid_;
  std::map<Genome, Fitness> fitness_;
  std::vector<Genome> order_;                        // configs with a fitness, in the order they became known
  std::set<std::pair<double, std::size_t>> ranked_;  // valid ok configs: (time, index in order_)
  std::set<Genome> taken_;
  std::vector<Genome> transferred_;  // the space's seeds first, then nearby problems' configs
  std::set<Genome> seeds_;
  std::size_t untaken_ = 0;
  Fitness best_;
};

}  // namespace evotune
