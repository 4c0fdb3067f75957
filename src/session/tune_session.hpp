// A tuning run: run_tune (open the store, find the target, plan, start the workers, search, finish) and the
// summary it returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/baseline.hpp"
#include "core/objective.hpp"
#include "session/stop_reason.hpp"
#include "session/tune_options.hpp"
#include "store/store.hpp"

namespace evotune {

struct TuneSummary {
  std::int64_t run_id = 0;
  std::int64_t evaluated = 0;
  std::int64_t failed = 0;
  std::int64_t candidates = 0;  // valid configs of the space for this problem and device
  std::int64_t skipped = 0;     // already measured before this run
  StopReason stop_reason = StopReason::finished;
  std::string error;                       // what ended the run, when stop_reason is failed
  int worker_restarts = 0;                 // workers replaced after a fault, a hang or a crash
  double seconds = 0;                      // wall time of the search loop
  std::vector<RankedResult> top;           // best stored results for this space, problem and device
  std::optional<BaselineTiming> baseline;  // the space's library baseline, timed by this run
};

// For tune --energy or an energy objective: throws Error where the energy cannot be read (a replay, or no
// NVML on this machine).
void check_energy_readable(Objective objective, bool replay);

// Runs one tuning session. Set-up errors throw Error; variant faults are stored as results.
// `interrupt` (may be null) is polled between variants: when set, the run stops cleanly.
TuneSummary run_tune(const TuneOptions& options, const std::atomic<bool>* interrupt);

}  // namespace evotune
