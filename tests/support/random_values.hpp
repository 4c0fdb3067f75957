// `count` doubles drawn uniformly from [-1, 1), for the float64 references' tests.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace evotune::test {

inline std::vector<double> random_values(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(count);
  for (auto& v : values) v = uniform(rng);
  return values;
}

}  // namespace evotune::test
