// A tuning run: its options, run_tune (open the store, find the target, plan, start the workers, search,
// finish) and the summary it returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/baseline.hpp"
#include "core/eval_settings.hpp"
#include "core/objective.hpp"
#include "session/stop_reason.hpp"
#include "store/store.hpp"

namespace evotune {

struct TuneOptions {
  std::filesystem::path space_file;
  std::string problem;  // "B=1,S=512" overrides; empty: the space's defaults
  // "NAME=V,...": the reference is the template at this config (its other values: Reference.Config's); only
  // for spaces whose reference is a config (T1 files); empty: the space's.
  std::string reference_config;
  std::string strategy = "exhaustive";
  std::optional<std::int64_t> budget;  // variants to evaluate in this run; default: the space's Budget
  std::uint64_t seed = 0;
  std::filesystem::path db_file = "results/evotune.db";
  std::string devices = "0";  // GPU ordinals, "0,1", or "all": one worker process each
  EvalSettings eval;          // eval.timeout_ms is the ceiling of the derived launch limit
  // What the strategy minimises; energy and edp need eval.measure_energy (NVML on the GPU's machine).
  Objective objective = Objective::time;
  int compile_threads = 0;    // 0: one per CPU core
  int patience = 0;           // learning strategies: generations without progress before stopping
  // After a finished search, the rerank_top fastest configs re-timed in rerank_rounds interleaved rounds
  // (session/rerank.hpp); 0: no rerank.
  int rerank_top = 10;
  int rerank_rounds = 5;
  bool remeasure_only = false;  // no search: only the rerank of what is stored (evotune remeasure)
  // A recorded sweep answers instead of a GPU (no compiles): replay_workers workers, each answer after
  // replay_delay_ms.
  std::optional<std::filesystem::path> replay_file;
  double replay_delay_ms = 0;
  int replay_workers = 1;
  std::vector<std::string> worker_command;  // how to start a worker: {evotune binary, "worker"}
  std::string command_line;
};

struct TuneSummary {
  std::int64_t run_id = 0;
  std::int64_t evaluated = 0;
  std::int64_t failed = 0;
  std::int64_t candidates = 0;  // valid configs of the space for this problem and device
  std::int64_t skipped = 0;     // already measured before this run
  StopReason stop_reason = StopReason::finished;
  std::string error;              // what ended the run, when stop_reason is failed
  int worker_restarts = 0;        // workers replaced after a fault, a hang or a crash
  double seconds = 0;             // wall time of the search loop
  std::vector<RankedResult> top;  // best stored results for this space, problem and device
  std::optional<BaselineTiming> baseline;  // the space's library baseline, timed by this run
};

// For tune --energy or an energy objective: throws Error where the energy cannot be read (a replay, or no
// NVML on this machine).
void check_energy_readable(Objective objective, bool replay);

// Runs one tuning session. Set-up errors throw Error; variant faults are stored as results.
// `interrupt` (may be null) is polled between variants: when set, the run stops cleanly.
TuneSummary run_tune(const TuneOptions& options, const std::atomic<bool>* interrupt);

}  // namespace evotune
