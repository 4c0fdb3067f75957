// The worker protocol: every message between the tuning process and a worker process, as typed structs.
// They travel as length-prefixed CBOR (ipc/frame_pipe) in the form worker/message_codec writes.
//
//   tuning process -> worker: one WorkerSetup, then JobMessages, one at a time, until the pipe closes
//   worker -> tuning process: ReadyAnswer or SetupErrorAnswer, then one ResultAnswer per job
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/baseline.hpp"
#include "core/compiled_kernel.hpp"
#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "core/launch_spec.hpp"
#include "core/outcome.hpp"

namespace evotune {

// A worker that evaluates on one GPU.
struct GpuSetup {
  int device_ordinal = 0;
  std::vector<BufferSpec> buffers;
  CompiledKernel reference;
  Tolerances tolerances;
  EvalSettings settings;
  std::vector<std::string> include_dirs;  // where NVRTC finds the CUDA headers for evotune's builtin kernels
  std::vector<ExtraProblem> extra_problems;  // validated after the main problem's rounds
  std::optional<GemmBaselineSpec> baseline;  // the space's library baseline, timed by baseline jobs
  // The space's DerivedInputs kernel and its launch for the main problem (each extra problem has its own):
  // computes the inputs of FillType derived after every fill.
  std::optional<CompiledKernel> derived_inputs = std::nullopt;
};

// A worker that answers from a recorded sweep instead of a GPU.
struct ReplaySetup {
  std::string sweep_file;
  double delay_ms = 0;  // wait this long before each answer
};

using WorkerSetup = std::variant<GpuSetup, ReplaySetup>;

// One variant to evaluate.
struct JobMessage {
  std::int64_t ticket = 0;  // the answer carries it back
  Config config;
  std::uint64_t validation_seed = 0;
  double launch_limit_ms = 0;  // per launch; past it the launch is a timeout
  std::string limit_basis;     // what set the limit ("20 x reference 0.41 ms"), for a timeout's message
  std::optional<CompiledKernel> kernel;    // the compiled variant; absent for a replay worker
  std::vector<LaunchSpec> extra_launches;  // the variant's launch for each of the setup's extra problems
  // Time it on validation_seed's inputs without validating (a config validated before, re-timed: tune
  // --rerank).
  bool timing_only = false;
  // >= 0: no variant; time the setup's library baseline with its heuristic's algorithm of this rank instead
  // (the outcome's timing; its message names the library and version).
  int baseline_algorithm = -1;
  // > 0: a validated variant whose fastest warm-up execution takes longer than this (us) is timed from its
  // warm-up executions alone (EvalSettings::cut_slow_factor x the best so far); 0: timed in full.
  double cut_slow_us = 0;
  // Whether this config's outputs must be bit-identical over two launches (Validation.Deterministic evaluated
  // for it); absent: the setup's Tolerances::deterministic.
  std::optional<bool> deterministic = std::nullopt;
};

// The worker is set up: the device it evaluates on and the reference kernel's time there.
struct ReadyAnswer {
  DeviceInfo device;
  double reference_ms = 0;  // 0 for a replay worker
};

// The worker could not set up (no GPU, a reference that does not run, an unreadable sweep), in one line.
struct SetupErrorAnswer {
  std::string message;
};

// A job's outcome. `healthy` false: the worker's GPU context is unusable and the worker exits after this.
struct ResultAnswer {
  std::int64_t ticket = 0;
  Outcome outcome;
  bool healthy = true;
};

using WorkerAnswer = std::variant<ReadyAnswer, SetupErrorAnswer, ResultAnswer>;

}  // namespace evotune
