// The noise band of a ranked result, and overlap with the winner's.
#include "store/noise_band.hpp"

namespace evotune {

std::pair<double, double> noise_band(const RankedResult& result) {
  if (result.remeasured) return {result.remeasured->min_us, result.remeasured->max_us};
  if (result.timing) return {result.timing->p20_us, result.timing->p80_us};
  return {0, 0};
}

bool within_noise(const RankedResult& result, const RankedResult& winner) {
  if (!result.timing || !winner.timing) return false;
  const auto [low, high] = noise_band(result);
  const auto [winner_low, winner_high] = noise_band(winner);
  return low <= winner_high && winner_low <= high;
}

}  // namespace evotune
