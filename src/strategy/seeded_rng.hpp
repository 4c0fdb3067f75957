// Reproducible random numbers: mt19937_64 plus our own bounded draw, so a seed gives the same sequence
// with every standard library (std::uniform_int_distribution is implementation-defined).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace evotune {

class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed) : engine_(seed) {}
  // Uniform integer in [0, bound), bound > 0, without modulo bias.
  std::uint64_t below(std::uint64_t bound);
  // Uniform double in [0, 1) from the top 53 bits of one draw.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // true with probability p.
  bool chance(double p) { return unit() < p; }
  template <typename T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace evotune
