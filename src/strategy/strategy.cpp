// The objective every strategy minimises.
#include "strategy/strategy.hpp"

namespace evotune {

std::optional<double> objective(const Outcome& outcome) {
  if (outcome.status != Status::ok || !outcome.timing) return std::nullopt;
  return outcome.timing->median_us;
}

}  // namespace evotune
