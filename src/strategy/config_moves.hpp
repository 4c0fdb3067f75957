// Configs as index vectors over each parameter's ordered values, and the moves search strategies make on
// them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "strategy/seeded_rng.hpp"

namespace evotune {

// A config in index form: entry i is the position of parameter i's value in its ordered value list
// (parameters in name order, as in Config). Adjacent indices are neighbouring values.
using Genome = std::vector<std::size_t>;

// The parameters, their ordered values and the valid configs (the candidates), in index form.
class ParamGrid {
 public:
  // Values follow parameter_values; a parameter or value that only the candidates have is appended in
  // ascending order, so every candidate has an index form.
  ParamGrid(const std::map<std::string, std::vector<ParamValue>>& parameter_values,
            const std::vector<Config>& candidates);

  std::size_t dimensions() const { return names_.size(); }
  std::size_t value_count(std::size_t gene) const { return values_[gene].size(); }
  // nullopt when the config has another set of parameters or a value outside the grid.
  std::optional<Genome> encode(const Config& config) const;
  Config decode(const Genome& genome) const;
  bool valid(const Genome& genome) const { return valid_.contains(genome); }
  // The candidates in their enumeration order.
  const std::vector<Genome>& candidates() const { return candidates_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<ParamValue>> values_;
  std::vector<Genome> candidates_;
  std::set<Genome> valid_;
};

// How mutate() changes genes.
struct MutationRates {
  double gene = 0.2;  // chance that a gene moves
  double jump = 0.1;  // chance that a moving gene takes any other value instead of a neighbouring one
};

// Position of value in values; nullopt when absent.
std::optional<std::size_t> index_of(const std::vector<ParamValue>& values, ParamValue value);

// One step to the left or right neighbour of index among count values (the only neighbour at an end).
// count must be at least 2.
std::size_t neighbour_index(std::size_t index, std::size_t count, SeededRng& rng);

// Each gene moves with rates.gene: to a neighbouring value, or with rates.jump to any other value. When no
// gene moved, one gene (of those with two or more values) moves to a neighbour, so the result differs.
Genome mutate(const Genome& genome, const ParamGrid& grid, const MutationRates& rates, SeededRng& rng);

// Uniform crossover: each gene from a or b with equal chance. a and b have the same length.
Genome crossover(const Genome& a, const Genome& b, SeededRng& rng);

// Sum over genes of |a_i - b_i|: how many neighbour steps apart two configs are.
std::size_t index_distance(const Genome& a, const Genome& b);

// genome itself when valid, else the valid candidate nearest by index_distance (ties broken at random);
// nullopt when there are no candidates.
std::optional<Genome> repair(const Genome& genome, const ParamGrid& grid, SeededRng& rng);

// The candidate nearest to genome (ties at random) among those for which usable(candidate) holds; nullopt
// when none does.
template <typename Usable>
std::optional<Genome> nearest_candidate(const Genome& genome, const ParamGrid& grid, SeededRng& rng,
                                        Usable usable) {
  std::vector<const Genome*> nearest;
  std::size_t best = 0;
  for (const Genome& candidate : grid.candidates()) {
    if (!usable(candidate)) continue;
    const std::size_t distance = index_distance(genome, candidate);
    if (nearest.empty() || distance < best) {
      nearest.clear();
      best = distance;
    }
    if (distance == best) nearest.push_back(&candidate);
  }
  if (nearest.empty()) return std::nullopt;
  return *nearest[rng.below(nearest.size())];
}

// Picks up to count configs of pool, spread out: each pick is the one of a few random draws farthest (by
// index_distance) from those picked before and from already.
std::vector<Genome> spread_sample(const std::vector<Genome>& pool, std::size_t count,
                                  const std::vector<Genome>& already, SeededRng& rng);

}  // namespace evotune
