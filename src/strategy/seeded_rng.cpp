// Rejection sampling for an unbiased bounded draw.
#include "strategy/seeded_rng.hpp"

namespace evotune {

std::uint64_t SeededRng::below(std::uint64_t bound) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::uint64_t value = engine_();
  while (value >= limit) value = engine_();
  return value % bound;
}

}  // namespace evotune
