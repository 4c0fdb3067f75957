// The JSON form of what crosses the pipe between the tuning process and its worker processes.
#pragma once

#include <nlohmann/json.hpp>

#include "core/compiled_kernel.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "core/launch_spec.hpp"
#include "core/outcome.hpp"

namespace evotune {

// Each pair round-trips exactly; a malformed message throws nlohmann::json::exception (a missing or mistyped
// field) or Error (an unknown dtype or status).
nlohmann::json to_json(const BufferSpec& buffer);
BufferSpec buffer_from_json(const nlohmann::json& json);
nlohmann::json to_json(const LaunchSpec& launch);
LaunchSpec launch_from_json(const nlohmann::json& json);
nlohmann::json to_json(const CompiledKernel& kernel);  // the cubin travels as binary
CompiledKernel kernel_from_json(const nlohmann::json& json);
nlohmann::json to_json(const Tolerances& tolerances);
Tolerances tolerances_from_json(const nlohmann::json& json);
nlohmann::json to_json(const EvalSettings& settings);
EvalSettings settings_from_json(const nlohmann::json& json);
nlohmann::json to_json(const DeviceInfo& device);
DeviceInfo device_from_json(const nlohmann::json& json);
nlohmann::json to_json(const Outcome& outcome);
Outcome outcome_from_json(const nlohmann::json& json);

}  // namespace evotune
