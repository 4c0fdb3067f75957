// Simulated annealing in synchronous rounds: every chain proposes one config, then all of them move.
#include "strategy/anneal_strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace evotune {
namespace {

constexpr int kStepAttempts = 40;

bool holds_genome(const std::vector<Genome>& genomes, const Genome& genome) {
  return std::find(genomes.begin(), genomes.end(), genome) != genomes.end();
}

}  // namespace

AnnealStrategy::AnnealStrategy(const StrategyInput& input, AnnealSettings settings)
    : RoundStrategy(input, settings.patience), settings_(settings) {
  const std::size_t valid = known_.grid().candidates().size();
  const std::size_t count = std::min(settings_.chains, std::max<std::size_t>(1, valid / 8));
  const std::vector<Scored> stored = known_.fastest(count / 2);
  std::vector<Genome> placed;
  for (const Scored& start : stored) {
    chains_.push_back({start, start.fitness, 0, settings_.start_temperature, std::nullopt});
    placed.push_back(start.genome);
  }
  // Then up to half the chains (rounded up) start at the best configs of nearby problems, the rest spread at
  // random.
  const std::vector<Genome> transferred =
      known_.transferred(std::min(count - stored.size(), (count + 1) / 2));
  for (const Genome& start : transferred) {
    chains_.push_back({std::nullopt, std::nullopt, 0, settings_.start_temperature, start});
    placed.push_back(start);
  }
  std::vector<Genome> pool;
  for (Genome& genome : known_.untaken())
    if (!holds_genome(transferred, genome)) pool.push_back(std::move(genome));
  for (Genome& start : spread_sample(pool, count - chains_.size(), placed, rng_))
    chains_.push_back({std::nullopt, std::nullopt, 0, settings_.start_temperature, std::move(start)});
  std::string start_line =
      fmt::format("anneal: {} chains, {} started from the database", chains_.size(), stored.size());
  if (!stored.empty()) start_line += fmt::format(" (best stored {:.2f} us)", *stored.front().fitness);
  const std::size_t seeds = known_.seeds_among(transferred);
  if (seeds > 0) start_line += fmt::format(", {} from the space's Seeds", seeds);
  if (transferred.size() > seeds)
    start_line += fmt::format(", {} from nearby problems", transferred.size() - seeds);
  start_line += fmt::format(", {} random", chains_.size() - stored.size() - transferred.size());
  begin(plan_round(), std::move(start_line));
}

void AnnealStrategy::finish_round(const std::vector<Genome>& /*round*/) {
  for (Chain& chain : chains_) {
    if (!chain.proposal) continue;
    if (const Fitness* fitness = known_.fitness(*chain.proposal)) settle(chain, *chain.proposal, *fitness);
    chain.proposal.reset();
  }
  // Population annealing, simply: a chain far behind the best known is moved to one of the best configs.
  const Fitness& best = known_.best();
  for (Chain& chain : chains_) {
    if (!best || !chain.current) continue;
    const Fitness& now = chain.current->fitness;
    if (!now || *now > *best * (1 + settings_.resample_gap)) restart(chain);
  }
}

std::vector<Genome> AnnealStrategy::plan_round() {
  std::vector<Genome> round;
  for (const Chain& chain : chains_)
    if (chain.proposal) round.push_back(*chain.proposal);
  for (Chain& chain : chains_) {
    if (chain.proposal || !chain.current) continue;
    chain.proposal = step(chain, round);
    if (chain.proposal) round.push_back(*chain.proposal);
  }
  return round;
}

std::optional<Genome> AnnealStrategy::step(Chain& chain, const std::vector<Genome>& round) {
  const ParamGrid& grid = known_.grid();
  for (int attempt = 0; attempt < kStepAttempts; ++attempt) {
    auto candidate = repair(mutate(chain.current->genome, grid, settings_.move, rng_), grid, rng_);
    if (!candidate) return std::nullopt;
    if (holds_genome(round, *candidate)) continue;
    if (const Fitness* fitness = known_.fitness(*candidate)) {
      settle(chain, *candidate, *fitness);
      continue;
    }
    if (known_.taken(*candidate)) continue;
    if (rng_.chance(settings_.avoid_failures * known_.failed_share_nearby(*candidate))) continue;
    return candidate;
  }
  // The neighbourhood is all known: go on from a best config, at the nearest config not yet measured.
  restart(chain);
  auto usable = [&](const Genome& g) { return !known_.taken(g) && !holds_genome(round, g); };
  return nearest_candidate(chain.current->genome, grid, rng_, usable);
}

void AnnealStrategy::settle(Chain& chain, const Genome& genome, const Fitness& fitness) {
  if (!chain.current) {
    chain.current = Scored{genome, fitness};
    chain.best = fitness;
    if (!fitness) restart(chain);
    return;
  }
  const Fitness& now = chain.current->fitness;
  bool accept = better(fitness, now);
  if (!accept && fitness && now)
    accept = rng_.chance(std::exp(-(*fitness - *now) / *now / chain.temperature));
  if (accept) chain.current = Scored{genome, fitness};
  chain.temperature = std::max(settings_.min_temperature, chain.temperature * settings_.cooling);
  if (better(fitness, chain.best)) {
    chain.best = fitness;
    chain.stale = 0;
  } else if (++chain.stale >= settings_.restart_after) {
    restart(chain);
  }
}

void AnnealStrategy::restart(Chain& chain) {
  const std::vector<Scored> top = known_.fastest(chains_.size());
  chain.stale = 0;
  if (top.empty()) return;
  chain.current = top[std::min(rng_.below(top.size()), rng_.below(top.size()))];
  chain.best = chain.current->fitness;
  chain.temperature = settings_.start_temperature;
}

std::unique_ptr<Strategy> make_anneal(StrategyInput input) {
  return std::make_unique<AnnealStrategy>(input, AnnealSettings{});
}

}  // namespace evotune
