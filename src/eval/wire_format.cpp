// The worker messages' parts, read through the core field reader.
#include "eval/wire_format.hpp"

namespace evotune {
namespace {

Fields fields(const nlohmann::json& json) { return Fields(json, "", "worker message"); }

}  // namespace

BufferSpec buffer_from_json(const nlohmann::json& j) { return buffer_from_json(fields(j)); }
LaunchSpec launch_from_json(const nlohmann::json& j) { return launch_from_json(fields(j)); }
CompiledKernel kernel_from_json(const nlohmann::json& j) { return kernel_from_json(fields(j)); }
Tolerances tolerances_from_json(const nlohmann::json& j) { return tolerances_from_json(fields(j)); }
EvalSettings settings_from_json(const nlohmann::json& j) { return settings_from_json(fields(j)); }
DeviceInfo device_from_json(const nlohmann::json& j) { return device_from_json(fields(j)); }
Outcome outcome_from_json(const nlohmann::json& j) { return outcome_from_json(fields(j)); }

}  // namespace evotune
