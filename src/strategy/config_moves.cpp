// Index form of configs; neighbour moves, mutation, crossover and repair to the nearest valid config.
#include "strategy/config_moves.hpp"

#include <algorithm>
#include <cstdint>

namespace evotune {

ParamGrid::ParamGrid(const std::map<std::string, std::vector<ParamValue>>& parameter_values,
                     const std::vector<Config>& candidates) {
  std::map<std::string, std::set<ParamValue>> extra;
  for (const auto& [name, values] : parameter_values) extra[name];
  for (const Config& config : candidates)
    for (const auto& [name, value] : config) extra[name].insert(value);
  for (auto& [name, seen] : extra) {
    names_.push_back(name);
    auto listed = parameter_values.find(name);
    std::vector<ParamValue> values =
        listed == parameter_values.end() ? std::vector<ParamValue>{} : listed->second;
    for (ParamValue value : seen)
      if (!index_of(values, value)) values.push_back(value);
    values_.push_back(std::move(values));
  }
  for (const Config& config : candidates) {
    auto genome = encode(config);
    if (genome && valid_.insert(*genome).second) candidates_.push_back(*genome);
  }
}

std::optional<Genome> ParamGrid::encode(const Config& config) const {
  if (config.size() != names_.size()) return std::nullopt;
  Genome genome;
  genome.reserve(names_.size());
  std::size_t gene = 0;
  for (const auto& [name, value] : config) {
    if (name != names_[gene]) return std::nullopt;
    auto index = index_of(values_[gene], value);
    if (!index) return std::nullopt;
    genome.push_back(*index);
    ++gene;
  }
  return genome;
}

Config ParamGrid::decode(const Genome& genome) const {
  Config config;
  for (std::size_t gene = 0; gene < names_.size(); ++gene) config[names_[gene]] = values_[gene][genome[gene]];
  return config;
}

std::optional<std::size_t> index_of(const std::vector<ParamValue>& values, ParamValue value) {
  auto found = std::find(values.begin(), values.end(), value);
  if (found == values.end()) return std::nullopt;
  return static_cast<std::size_t>(found - values.begin());
}

std::size_t neighbour_index(std::size_t index, std::size_t count, SeededRng& rng) {
  if (index == 0) return 1;
  if (index + 1 >= count) return count - 2;
  return rng.below(2) == 0 ? index - 1 : index + 1;
}

Genome mutate(const Genome& genome, const ParamGrid& grid, const MutationRates& rates, SeededRng& rng) {
  Genome child = genome;
  std::vector<std::size_t> movable;
  for (std::size_t gene = 0; gene < child.size(); ++gene) {
    const std::size_t count = grid.value_count(gene);
    if (count < 2) continue;
    movable.push_back(gene);
    if (!rng.chance(rates.gene)) continue;
    if (count > 2 && rng.chance(rates.jump)) {
      const std::size_t other = rng.below(count - 1);
      child[gene] = other >= child[gene] ? other + 1 : other;
    } else {
      child[gene] = neighbour_index(child[gene], count, rng);
    }
  }
  if (child == genome && !movable.empty()) {
    const std::size_t gene = movable[rng.below(movable.size())];
    child[gene] = neighbour_index(child[gene], grid.value_count(gene), rng);
  }
  return child;
}

Genome crossover(const Genome& a, const Genome& b, SeededRng& rng) {
  Genome child(a.size());
  for (std::size_t gene = 0; gene < a.size(); ++gene) child[gene] = rng.below(2) == 0 ? a[gene] : b[gene];
  return child;
}

std::size_t index_distance(const Genome& a, const Genome& b) {
  std::size_t distance = 0;
  for (std::size_t gene = 0; gene < a.size(); ++gene)
    distance += a[gene] > b[gene] ? a[gene] - b[gene] : b[gene] - a[gene];
  return distance;
}

std::optional<Genome> repair(const Genome& genome, const ParamGrid& grid, SeededRng& rng) {
  if (grid.valid(genome)) return genome;
  return nearest_candidate(genome, grid, rng, [](const Genome&) { return true; });
}

std::vector<Genome> spread_sample(const std::vector<Genome>& pool, std::size_t count,
                                  const std::vector<Genome>& already, SeededRng& rng) {
  constexpr std::size_t kDraws = 8;
  std::vector<Genome> left = pool;
  std::vector<Genome> picked;
  std::vector<Genome> placed = already;
  while (picked.size() < count && !left.empty()) {
    std::size_t best_index = 0;
    std::size_t best_gap = 0;
    for (std::size_t draw = 0; draw < kDraws; ++draw) {
      const std::size_t index = rng.below(left.size());
      std::size_t gap = SIZE_MAX;
      for (const Genome& other : placed) gap = std::min(gap, index_distance(left[index], other));
      if (draw == 0 || gap > best_gap) {
        best_index = index;
        best_gap = gap;
      }
    }
    placed.push_back(left[best_index]);
    picked.push_back(left[best_index]);
    left[best_index] = left.back();
    left.pop_back();
  }
  return picked;
}

}  // namespace evotune
