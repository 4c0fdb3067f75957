// The JSON form of the core types: the one place each is written and read, whether it travels to a worker
// process or a compiler process (as CBOR) or lands in a sweep file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/baseline.hpp"
#include "core/compiled_kernel.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "core/json_fields.hpp"
#include "core/launch_spec.hpp"
#include "core/outcome.hpp"
#include "core/status.hpp"

namespace evotune {

// Writers keep their keys in the order written: a sweep file's bytes depend on it. Readers take the object
// through Fields: a missing, mistyped or unknown field, an unknown status or dtype is an Error naming it.
// Each pair round-trips exactly (through CBOR too, where binary data and NaN survive).

// {"name", "arch", "cc_major", ...}: "arch" is written for people and checked against cc_major/cc_minor on
// reading. The limits a results database does not keep (global_mem_bytes, max_threads_per_block,
// smem_per_sm, regs_per_block, regs_per_sm, warp_size) may be absent: they keep DeviceInfo's defaults.
nlohmann::ordered_json to_json(const DeviceInfo& device);
DeviceInfo device_from_json(const Fields& fields);

// "method" ({"mode", "graph_executions", "flush_l2", and "fallback" when not empty}) only when known.
nlohmann::ordered_json to_json(const TimingStats& timing);
// "CUDA events, 3 warm-up + 30 timed launches, L2 flushed before each, 2 validation rounds" from the JSON of
// to_json(EvalSettings), as runs.timing stores it (without "timing": single launches, as before the modes).
std::string describe_timing(const nlohmann::json& timing);
TimingStats timing_from_json(const Fields& fields);  // a negative median is rejected on reading
nlohmann::ordered_json to_json(const TimingMethod& method);
TimingMethod timing_method_from_json(const Fields& fields);
// The timing mode named by fields[key] ("single", "graph", "auto").
TimingMode timing_mode_from_json(const Fields& fields, const std::string& key);
nlohmann::ordered_json to_json(const EnergyStats& energy);
EnergyStats energy_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const ErrorStats& error);
ErrorStats error_stats_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const CompileInfo& info);
CompileInfo compile_info_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const Outcome& outcome);  // "error" and "timing" only when present
Outcome outcome_from_json(const Fields& fields);
// The status named by fields[key] ("ok", "timeout", ...).
Status status_from_json(const Fields& fields, const std::string& key);

nlohmann::ordered_json to_json(const BufferSpec& buffer);
BufferSpec buffer_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const LaunchSpec& launch);
LaunchSpec launch_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const CompiledKernel& kernel);  // the cubin as binary data
CompiledKernel kernel_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const Tolerances& tolerances);
Tolerances tolerances_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const EvalSettings& settings);
EvalSettings settings_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const GemmBaselineSpec& spec);
GemmBaselineSpec gemm_baseline_from_json(const Fields& fields);
nlohmann::ordered_json to_json(const BaselineTiming& timing);
BaselineTiming baseline_timing_from_json(const Fields& fields);

}  // namespace evotune
