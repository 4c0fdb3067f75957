// Fitness bookkeeping shared by the learning strategies.
#include "strategy/known_configs.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evotune {

bool better(const Fitness& a, const Fitness& b) {
  if (!a) return false;
  if (!b) return true;
  return *a < *b;
}

KnownConfigs::KnownConfigs(const StrategyInput& input)
    : grid_(input.parameter_values, input.candidates), untaken_(grid_.candidates().size()) {
  for (const PastResult& past : input.history) {
    auto genome = grid_.encode(past.config);
    if (!genome || fitness_.contains(*genome)) continue;
    const bool ok = past.status == Status::ok && past.value.has_value();
    record(*genome, ok ? past.value : std::nullopt);
  }
  for (const std::string& text : input.already_measured) {
    Config config;
    try {
      config = parse_int_map(text);
    } catch (const Error&) {
      continue;  // not a config of this grid: nothing to avoid
    }
    if (auto genome = grid_.encode(config)) take(*genome);
  }
  for (const auto* configs : {&input.seeds, &input.transferred}) {
    for (const Config& config : *configs) {
      const auto genome = grid_.encode(config);
      if (!genome || !grid_.valid(*genome) ||
          std::find(transferred_.begin(), transferred_.end(), *genome) != transferred_.end())
        continue;
      transferred_.push_back(*genome);
      if (configs == &input.seeds) seeds_.insert(*genome);
    }
  }
}

std::size_t KnownConfigs::seeds_among(const std::vector<Genome>& genomes) const {
  return static_cast<std::size_t>(std::count_if(
      genomes.begin(), genomes.end(), [&](const Genome& genome) { return seeds_.contains(genome); }));
}

const Fitness* KnownConfigs::fitness(const Genome& genome) const {
  auto found = fitness_.find(genome);
  return found == fitness_.end() ? nullptr : &found->second;
}

void KnownConfigs::take(const Genome& genome) {
  if (taken_.insert(genome).second && grid_.valid(genome)) --untaken_;
}

void KnownConfigs::record(const Genome& genome, Fitness fitness) {
  take(genome);
  if (!fitness_.emplace(genome, fitness).second) return;
  if (fitness && grid_.valid(genome)) ranked_.emplace(*fitness, order_.size());
  order_.push_back(genome);
  if (better(fitness, best_)) best_ = fitness;
}

std::vector<Genome> KnownConfigs::untaken() const {
  std::vector<Genome> result;
  for (const Genome& candidate : grid_.candidates())
    if (!taken(candidate)) result.push_back(candidate);
  return result;
}

double KnownConfigs::failed_share_nearby(const Genome& genome) const {
  std::size_t known = 0, failed = 0;
  for (const auto& [other, fitness] : fitness_) {
    if (index_distance(genome, other) != 1) continue;
    ++known;
    failed += fitness ? 0 : 1;
  }
  return known == 0 ? 0.0 : static_cast<double>(failed) / static_cast<double>(known);
}

std::vector<Genome> KnownConfigs::transferred(std::size_t limit) const {
  std::vector<Genome> result;
  for (const Genome& genome : transferred_) {
    if (result.size() == limit) break;
    if (!taken(genome)) result.push_back(genome);
  }
  return result;
}

std::vector<Scored> KnownConfigs::fastest(std::size_t limit) const {
  std::vector<Scored> result;
  for (auto it = ranked_.begin(); it != ranked_.end() && result.size() < limit; ++it)
    result.push_back({order_[it->second], it->first});
  return result;
}

}  // namespace evotune
