// The result of evaluating one variant: a status plus whatever was measured on the way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/status.hpp"
#include "core/timing_mode.hpp"

namespace evotune {

struct TimingStats {
  double median_us = 0;
  double min_us = 0;
  double mean_us = 0;
  double stddev_us = 0;
  double p20_us = 0;
  double p80_us = 0;
  int samples = 0;
  std::optional<TimingMethod> method{};  // how the samples were taken; none where that was not recorded
};

// The energy of a variant, from NVML's total-energy counter read around a loop of executions at least
// EvalSettings::energy_window_ms long (the counter's resolution is a millijoule and it updates every few ms).
struct EnergyStats {
  double uj_per_execution = 0;  // microjoules per execution of the variant (all its launches)
  double avg_power_w = 0;       // the counter's difference over the loop's time
  double window_ms = 0;         // the loop's time between CUDA events
  std::int64_t executions = 0;  // executions in the loop
};

struct ErrorStats {
  double max_abs = 0;           // max |out - ref| over finite elements
  double rel_l2 = 0;            // ||out - ref||_2 / ||ref||_2
  std::int64_t non_finite = 0;  // NaN/Inf elements in the output (unwritten elements stay NaN)
  std::int64_t elements = 0;
};

// Where one NVRTC compile spent its time, as NVRTC's --time reports it (whole milliseconds).
struct CompilePhases {
  double frontend_ms = 0;  // CUDA C++ front end: preprocessing, parsing, templates
  double nvvm_ms = 0;      // NVVM optimizer: LLVM IR to PTX
  double ptxas_ms = 0;     // PTX translation: ptxas, PTX to SASS
};

struct CompileInfo {
  std::string arch;   // "sm_90a"
  int registers = 0;  // per thread
  int static_smem_bytes = 0;
  int spill_store_bytes = 0;  // local-memory spills reported by ptxas
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  double compile_ms = 0;
  bool from_cache = false;
  std::string log;
  std::optional<CompilePhases> phases = std::nullopt;  // compile_ms by phase; none when NVRTC did not report
};

struct Outcome {
  Status status = Status::ok;
  std::string message;  // the reason when status != ok
  CompileInfo compile;
  std::optional<ErrorStats> error;    // present once validation ran
  std::optional<TimingStats> timing;  // present when status == ok
  std::optional<EnergyStats> energy;  // when asked for (EvalSettings::measure_energy) and NVML reads energy
  std::uint64_t validation_seed = 0;
  int validation_rounds = 0;  // rounds the variant passed (their seeds derive from validation_seed)
  double validate_ms = 0;     // host-side wall time of the validation step
  double bench_ms = 0;        // host-side wall time of the timing step
};

}  // namespace evotune
