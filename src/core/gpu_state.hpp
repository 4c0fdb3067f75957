// The state of a GPU when a time was taken, as NVML reports it: clocks, power, temperature, ECC and MIG mode,
// and the reasons its clocks are held down. A field NVML could not give is absent.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace evotune {

struct GpuState {
  std::string uuid;                                                // "GPU-8f3c...": which physical GPU
  std::string pci_bus_id;                                          // "00000000:18:00.0"
  std::optional<unsigned> sm_clock_mhz, memory_clock_mhz;          // now
  std::optional<unsigned> max_sm_clock_mhz, max_memory_clock_mhz;  // the hardware's maximum
  std::optional<unsigned> app_sm_clock_mhz, app_memory_clock_mhz;  // application (or locked) clocks
  std::optional<unsigned> power_mw, power_limit_mw;
  std::optional<unsigned> temperature_c;
  std::optional<bool> ecc, mig;
  std::optional<std::uint64_t> clock_reasons;  // NVML clock event (throttle) reason bits
  std::optional<std::uint64_t> energy_mj;      // total since the driver loaded
};

// NVML's clock event reason bits that mean the GPU runs slower than it could (power cap, thermal or hardware
// slowdown, power brake), as opposed to idle, application clock or display settings.
inline constexpr std::uint64_t kThrottleReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// Names of the set reason bits: "idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
// "sw_thermal", "hw_thermal", "power_brake", "display_clocks", or "0x..." for a bit without a name.
std::vector<std::string> clock_reason_names(std::uint64_t reasons);
// Whether the reasons hold the clocks down (kThrottleReasons); the names of those that do, comma-separated.
std::string throttle_text(std::uint64_t reasons);

// One line: "SM 1980/1980 MHz, memory 2619/2619 MHz, 41 C, 71/700 W, ECC on, MIG off, clocks: idle".
std::string describe(const GpuState& state);

nlohmann::ordered_json to_json(const GpuState& state);
// Reads what to_json writes; throws Error on a malformed object.
GpuState gpu_state_from_json(const nlohmann::json& json);

// Several GPUs' states as runs.gpu_state_start/end hold them: a JSON array, one object per GPU.
std::string gpu_states_json(const std::vector<GpuState>& states);
// describe() of each GPU in such an array; throws Error when the text is not one.
std::vector<std::string> describe_gpu_states(const std::string& states_json);

}  // namespace evotune
