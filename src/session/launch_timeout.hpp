// How long a variant may run before it counts as hung: derived from the reference kernel's time and the best
// time found so far, never above the user's ceiling.
#pragma once

#include <optional>
#include <string>

#include "core/eval_settings.hpp"

namespace evotune {

struct TimeoutPolicy {
  double ceiling_ms = 10000;     // --timeout-ms
  double floor_ms = 1000;        // never shorter: on an H100 faults took over 50 ms to surface
  double reference_factor = 20;  // a variant may be this many times slower than the (naive) reference
  double best_factor = 100;      // ... and this many times slower than the best variant so far
};

struct LaunchLimit {
  double per_launch_ms = 0;  // one validation or timing launch
  std::string basis;         // what set it, for the timeout message: "20 x reference 0.41 ms"
};

LaunchLimit launch_limit(const TimeoutPolicy& policy, double reference_ms, std::optional<double> best_ms);

// The watchdog on a whole job (validation: the reference and the variant once per round, the variant once
// more for the bitwise repeat; then warm-up and timed launches; plus host work): past it the worker is
// killed. Generous, since the worker enforces per_launch_ms itself.
// extra_rounds: the space's special-input rounds and extra problems, two launches each.
double job_deadline_ms(const LaunchLimit& limit, const EvalSettings& settings, int extra_rounds = 0);

}  // namespace evotune
