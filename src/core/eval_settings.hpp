// How a variant is measured: warm-up, repetitions, L2 flushing, the timing mode, the per-launch limit,
// recovery after faults.
#pragma once

#include "core/timing_mode.hpp"

namespace evotune {

struct EvalSettings {
  int warmup = 3;             // untimed executions first (graph, auto: timed, to choose G and the mode)
  int repetitions = 30;       // timed launches (graph mode: replays), each with its own event pair
  bool flush_l2 = true;       // overwrite a 2x-L2 scratch buffer before each timed launch (or graph replay)
  double timeout_ms = 10000;  // per validation launch; the timing phase gets this per launch
  // After a sticky fault or a hung kernel: try to reset the context in this process (true), or give up at
  // once and report unhealthy (false: a worker process, which the pool replaces with a fresh one).
  bool reset_in_process = true;
  // Validation rounds, each on fresh random inputs (round r's seed: validation_round_seed(seed, r)).
  int validation_rounds = 2;
  // Single launches, a CUDA graph of several executions, or graph for short variants (core/timing_mode.hpp).
  TimingMode timing = TimingMode::automatic;
  // After timing an ok variant: its energy per execution, from NVML's energy counter around a loop of its
  // executions at least energy_window_ms long (Outcome::energy; nothing where NVML reads no energy).
  bool measure_energy = false;
  double energy_window_ms = 200;
  // After the warm-up executions: more (graph replays) for at least this long before the timed ones, so that
  // these meet the clocks that a sustained load of the variant settles at (power and thermal limits) rather
  // than an idle GPU's boost; 0: none.
  double warmup_ms = 0;
  // Every buffer between canary-filled guard margins in its allocation (out_of_bounds), and the space's extra
  // problems run too (true); or every buffer allocated at exactly its size and the main problem only (false:
  // `evotune sanitize`, so that memcheck sees a write past a buffer's end, which a margin would absorb).
  bool guard_margins = true;
  // A validated variant whose fastest warm-up execution takes over this many times the best time so far (of
  // the run's problem, objective time) is timed from its warm-up executions alone: no sustained warm-up, no
  // graph, no timed repetitions (TimingMethod::cut says so). 0: every variant timed in full.
  double cut_slow_factor = 2;
};

}  // namespace evotune
