// The genetic algorithm: survivor selection and breeding between generations.
#include "strategy/evolve_strategy.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace evotune {
namespace {

bool contains(const std::vector<Genome>& genomes, const Genome& genome) {
  return std::find(genomes.begin(), genomes.end(), genome) != genomes.end();
}

bool contains(const std::vector<Scored>& members, const Genome& genome) {
  return std::any_of(members.begin(), members.end(), [&](const Scored& m) { return m.genome == genome; });
}

}  // namespace

EvolveStrategy::EvolveStrategy(const StrategyInput& input, EvolveSettings settings)
    : RoundStrategy(input, settings.patience), settings_(settings) {
  const std::size_t valid = known_.grid().candidates().size();
  population_size_ = std::min(settings_.population, std::max<std::size_t>(2, valid / 4));
  population_ = known_.fastest(population_size_ / 2);
  std::vector<Genome> seeded;
  for (const Scored& member : population_) seeded.push_back(member.genome);
  const std::size_t open = std::min(settings_.first_random, population_size_ - population_.size());
  // The best configs of nearby problems take up to half the first generation (rounded up), the rest is spread
  // at random so that the search still explores.
  std::vector<Genome> first = known_.transferred((open + 1) / 2);
  const std::size_t transferred = first.size();
  std::vector<Genome> avoid = seeded;
  avoid.insert(avoid.end(), first.begin(), first.end());
  std::vector<Genome> pool;
  for (Genome& genome : known_.untaken())
    if (!contains(first, genome)) pool.push_back(std::move(genome));
  for (Genome& genome : spread_sample(pool, open - transferred, avoid, rng_))
    first.push_back(std::move(genome));
  std::string start_line =
      fmt::format("evolve: population {}, seeded {} from the database", population_size_, seeded.size());
  if (!population_.empty())
    start_line += fmt::format(" (best stored {:.2f} us)", *population_.front().fitness);
  const std::size_t seeds = known_.seeds_among(first);
  if (seeds > 0) start_line += fmt::format(", {} from the space's Seeds", seeds);
  if (transferred > seeds) start_line += fmt::format(", {} from nearby problems", transferred - seeds);
  start_line += fmt::format(", {} random", first.size() - transferred);
  begin(std::move(first), std::move(start_line));
}

void EvolveStrategy::finish_round(const std::vector<Genome>& generation) {
  std::vector<Scored> pool = population_;
  auto join = [&](const Genome& genome, const Fitness& fitness) {
    if (!contains(pool, genome)) pool.push_back({genome, fitness});
  };
  for (const Genome& genome : generation)
    if (const Fitness* fitness = known_.fitness(genome)) join(genome, *fitness);
  for (const Scored& member : met_) join(member.genome, member.fitness);
  met_.clear();
  std::stable_sort(pool.begin(), pool.end(),
                   [](const Scored& a, const Scored& b) { return better(a.fitness, b.fitness); });
  if (pool.size() > population_size_) pool.resize(population_size_);
  population_ = std::move(pool);
}

std::vector<Genome> EvolveStrategy::plan_round() {
  const std::size_t wanted = std::min({settings_.offspring, population_size_, known_.untaken_count()});
  if (population_.empty()) return spread_sample(known_.untaken(), wanted, {}, rng_);
  std::vector<Genome> generation;
  const std::size_t max_attempts = 50 * wanted;
  for (std::size_t attempt = 0; attempt < max_attempts && generation.size() < wanted; ++attempt) {
    auto child = draw_child();
    if (!child || contains(generation, *child)) continue;
    if (const Fitness* fitness = known_.fitness(*child)) {
      if (!contains(population_, *child) && !contains(met_, *child)) met_.push_back({*child, *fitness});
      continue;
    }
    if (known_.taken(*child)) continue;
    // Where the known neighbours failed, this config likely fails too: usually draw another.
    if (rng_.chance(settings_.avoid_failures * known_.failed_share_nearby(*child))) continue;
    generation.push_back(*child);
  }
  // Every child bred was known (the population has converged): explore the configs nearest to good ones.
  while (generation.size() < wanted) {
    auto usable = [&](const Genome& g) { return !known_.taken(g) && !contains(generation, g); };
    auto near = nearest_candidate(tournament().genome, known_.grid(), rng_, usable);
    if (!near) break;
    generation.push_back(*near);
  }
  return generation;
}

std::optional<Genome> EvolveStrategy::draw_child() {
  const Scored& first = tournament();
  Genome child = first.genome;
  if (population_.size() >= 2 && rng_.chance(settings_.crossover))
    child = crossover(first.genome, tournament().genome, rng_);
  return repair(mutate(child, known_.grid(), settings_.mutation, rng_), known_.grid(), rng_);
}

const Scored& EvolveStrategy::tournament() {
  const Scored* winner = &population_[rng_.below(population_.size())];
  for (std::size_t draw = 1; draw < settings_.tournament; ++draw) {
    const Scored& rival = population_[rng_.below(population_.size())];
    if (better(rival.fitness, winner->fitness)) winner = &rival;
  }
  return *winner;
}

std::unique_ptr<Strategy> make_evolve(StrategyInput input) {
  return std::make_unique<EvolveStrategy>(input, EvolveSettings{});
}

}  // namespace evotune
