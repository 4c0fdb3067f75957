// Reading what crosses the pipe between the tuning process and its worker processes; the writers are the
// core serialiser's to_json.
#pragma once

#include <nlohmann/json.hpp>

#include "core/core_json.hpp"

namespace evotune {

// A malformed message throws Error naming the field.
BufferSpec buffer_from_json(const nlohmann::json& json);
LaunchSpec launch_from_json(const nlohmann::json& json);
CompiledKernel kernel_from_json(const nlohmann::json& json);
Tolerances tolerances_from_json(const nlohmann::json& json);
EvalSettings settings_from_json(const nlohmann::json& json);
DeviceInfo device_from_json(const nlohmann::json& json);
Outcome outcome_from_json(const nlohmann::json& json);

}  // namespace evotune
