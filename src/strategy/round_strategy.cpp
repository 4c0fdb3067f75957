// Rounds of proposals: hand them out one at a time, count the outcomes back in, then plan the next round.
#include "strategy/round_strategy.hpp"

namespace evotune {

RoundStrategy::RoundStrategy(const StrategyInput& input, int default_patience)
    : known_(input),
      rng_(input.seed),
      objective_(input.objective),
      patience_(input.patience > 0 ? input.patience : default_patience),
      best_before_round_(known_.best()) {}

void RoundStrategy::begin(std::vector<Genome> first_round, std::string start_line) {
  round_ = std::move(first_round);
  start_line_ = std::move(start_line);
}

std::optional<Config> RoundStrategy::next() {
  if (done_) return std::nullopt;
  if (cursor_ == round_.size()) {
    if (!in_flight_.empty()) return std::nullopt;
    finish_round(round_);
    stale_rounds_ = better(known_.best(), best_before_round_) ? 0 : stale_rounds_ + 1;
    best_before_round_ = known_.best();
    if (stale_rounds_ >= patience_ || known_.untaken_count() == 0) done_ = true;
    if (!done_) {
      round_ = plan_round();
      cursor_ = 0;
    }
    if (round_.empty()) done_ = true;
    if (done_) return std::nullopt;
  }
  const Genome& genome = round_[cursor_++];
  known_.take(genome);
  in_flight_.insert(genome);
  return known_.grid().decode(genome);
}

void RoundStrategy::observe(const Config& config, const Outcome& outcome) {
  auto genome = known_.grid().encode(config);
  if (!genome || in_flight_.erase(*genome) == 0) return;
  known_.record(*genome, objective_value(objective_, outcome));
}

}  // namespace evotune
