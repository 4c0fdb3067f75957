// The derived launch limit and the job watchdog.
#include "session/launch_timeout.hpp"

#include <algorithm>
#include <cstdio>

namespace evotune {
namespace {

std::string describe(double factor, const char* what, double ms) {
  char text[96];
  std::snprintf(text, sizeof text, "%g x %s %.3g ms", factor, what, ms);
  return text;
}

}  // namespace

LaunchLimit launch_limit(const TimeoutPolicy& policy, double reference_ms, std::optional<double> best_ms) {
  LaunchLimit limit{policy.ceiling_ms, "the --timeout-ms ceiling"};
  const auto tighten = [&](double candidate_ms, std::string basis) {
    if (candidate_ms < policy.floor_ms) {
      char text[64];
      std::snprintf(text, sizeof text, "the %g ms floor", policy.floor_ms);
      candidate_ms = policy.floor_ms;
      basis = text;
    }
    if (candidate_ms < limit.per_launch_ms) limit = {candidate_ms, std::move(basis)};
  };
  if (reference_ms > 0)
    tighten(policy.reference_factor * reference_ms,
            describe(policy.reference_factor, "reference", reference_ms));
  if (best_ms && *best_ms > 0)
    tighten(policy.best_factor * *best_ms, describe(policy.best_factor, "best so far", *best_ms));
  return limit;
}

double job_deadline_ms(const LaunchLimit& limit, const EvalSettings& settings, int extra_rounds) {
  constexpr double kHostWorkMs = 20000;  // module load, input fills, output download and comparison
  const int validation_launches =
      2 * (std::max(settings.validation_rounds, 1) + std::max(extra_rounds, 0)) + 1;
  return limit.per_launch_ms *
             (validation_launches + std::max(settings.warmup, 0) + std::max(settings.repetitions, 0)) +
         2 * std::max(settings.warmup_ms, 0.0) + kHostWorkMs;
}

}  // namespace evotune
