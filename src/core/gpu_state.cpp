// Naming clock reasons, describing and (de)serialising a GPU's state.
#include "core/gpu_state.hpp"

#include <array>
#include <cstdio>

#include "core/error.hpp"

namespace evotune {
namespace {

constexpr std::array<const char*, 9> kReasonNames{"idle",        "app_clocks",  "sw_power_cap",
                                                  "hw_slowdown", "sync_boost",  "sw_thermal",
                                                  "hw_thermal",  "power_brake", "display_clocks"};

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

// The optional fields by JSON key, in the order they are written.
template <typename T>
using StateFields = std::initializer_list<std::pair<const char*, std::optional<T> GpuState::*>>;
const StateFields<unsigned> kCounts{{"sm_clock_mhz", &GpuState::sm_clock_mhz},
                                    {"memory_clock_mhz", &GpuState::memory_clock_mhz},
                                    {"max_sm_clock_mhz", &GpuState::max_sm_clock_mhz},
                                    {"max_memory_clock_mhz", &GpuState::max_memory_clock_mhz},
                                    {"app_sm_clock_mhz", &GpuState::app_sm_clock_mhz},
                                    {"app_memory_clock_mhz", &GpuState::app_memory_clock_mhz},
                                    {"power_mw", &GpuState::power_mw},
                                    {"power_limit_mw", &GpuState::power_limit_mw},
                                    {"temperature_c", &GpuState::temperature_c}};
const StateFields<bool> kModes{{"ecc", &GpuState::ecc}, {"mig", &GpuState::mig}};
const StateFields<std::uint64_t> kWords{{"clock_reasons", &GpuState::clock_reasons},
                                        {"energy_mj", &GpuState::energy_mj}};

template <typename T>
void put(nlohmann::ordered_json& json, const char* key, const std::optional<T>& value) {
  if (value) json[key] = *value;
}

template <typename T>
void get(const nlohmann::json& json, const char* key, std::optional<T>& value) {
  if (json.contains(key) && !json.at(key).is_null()) value = json.at(key).get<T>();
}

}  // namespace

std::vector<std::string> clock_reason_names(std::uint64_t reasons) {
  std::vector<std::string> names;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if ((reasons >> bit & 1) == 0) continue;
    if (bit < kReasonNames.size()) {
      names.push_back(kReasonNames[bit]);
    } else {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", 1ULL << bit);
      names.push_back(hex);
    }
  }
  return names;
}

std::string throttle_text(std::uint64_t reasons) {
  return join(clock_reason_names(reasons & kThrottleReasons));
}

std::string describe(const GpuState& s) {
  auto pair = [](const std::optional<unsigned>& now, const std::optional<unsigned>& max) {
    return (now ? std::to_string(*now) : "?") + "/" + (max ? std::to_string(*max) : "?");
  };
  std::string text = "SM " + pair(s.sm_clock_mhz, s.max_sm_clock_mhz) + " MHz, memory " +
                     pair(s.memory_clock_mhz, s.max_memory_clock_mhz) + " MHz";
  if (s.app_sm_clock_mhz)
    text += ", application clocks " + pair(s.app_sm_clock_mhz, s.app_memory_clock_mhz) + " MHz";
  auto watts = [](const std::optional<unsigned>& mw) {
    return mw ? std::to_string((*mw + 500) / 1000) : std::string("?");
  };
  if (s.temperature_c) text += ", " + std::to_string(*s.temperature_c) + " C";
  if (s.power_mw || s.power_limit_mw) text += ", " + watts(s.power_mw) + "/" + watts(s.power_limit_mw) + " W";
  if (s.ecc) text += *s.ecc ? ", ECC on" : ", ECC off";
  if (s.mig) text += *s.mig ? ", MIG on" : ", MIG off";
  if (s.clock_reasons) {
    const std::string reasons = join(clock_reason_names(*s.clock_reasons));
    text += ", clocks: " + (reasons.empty() ? std::string("not held down") : reasons);
  }
  return text;
}

nlohmann::ordered_json to_json(const GpuState& s) {
  nlohmann::ordered_json json = {{"uuid", s.uuid}, {"pci_bus_id", s.pci_bus_id}};
  for (const auto& [key, field] : kCounts) put(json, key, s.*field);
  for (const auto& [key, field] : kModes) put(json, key, s.*field);
  for (const auto& [key, field] : kWords) put(json, key, s.*field);
  return json;
}

GpuState gpu_state_from_json(const nlohmann::json& json) {
  try {
    GpuState s;
    s.uuid = json.at("uuid").get<std::string>();
    s.pci_bus_id = json.at("pci_bus_id").get<std::string>();
    for (const auto& [key, field] : kCounts) get(json, key, s.*field);
    for (const auto& [key, field] : kModes) get(json, key, s.*field);
    for (const auto& [key, field] : kWords) get(json, key, s.*field);
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed GPU state: ") + e.what());
  }
}

std::string gpu_states_json(const std::vector<GpuState>& states) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const GpuState& state : states) json.push_back(to_json(state));
  return json.dump();
}

std::vector<std::string> describe_gpu_states(const std::string& states_json) {
  nlohmann::json states;
  try {
    states = nlohmann::json::parse(states_json);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed GPU states: ") + e.what());
  }
  if (!states.is_array()) throw Error("malformed GPU states: not a JSON array");
  std::vector<std::string> lines;
  for (const auto& state : states) lines.push_back(describe(gpu_state_from_json(state)));
  return lines;
}

}  // namespace evotune
