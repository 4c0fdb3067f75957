// An outcome measured at `us` microseconds (one sample), for the strategies' tests.
#pragma once

#include "core/outcome.hpp"

namespace evotune::test {

inline Outcome timed(double us) {
  Outcome outcome;
  outcome.timing = TimingStats{
      .median_us = us, .min_us = us, .mean_us = us, .stddev_us = 0, .p20_us = us, .p80_us = us, .samples = 1};
  return outcome;
}

}  // namespace evotune::test
