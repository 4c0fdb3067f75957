// Loading NVML with dlopen and reading one GPU's state; the few NVML signatures used are declared here (a
// stable C ABI), so no NVML header is needed to build.
#include "cuda/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace evotune::cuda {
namespace {

using Result = int;  // nvmlReturn_t: 0 is NVML_SUCCESS
using Device = void*;
constexpr Result kSuccess = 0;
constexpr int kClockSm = 1, kClockMemory = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;             // nvmlTemperatureSensors_t

}  // namespace

struct Nvml::Api {
  Result (*init)() = nullptr;
  Result (*shutdown)() = nullptr;
  Result (*by_pci_bus_id)(const char*, Device*) = nullptr;
  Result (*uuid)(Device, char*, unsigned) = nullptr;
  Result (*clock)(Device, int, unsigned*) = nullptr;
  Result (*max_clock)(Device, int, unsigned*) = nullptr;
  Result (*app_clock)(Device, int, unsigned*) = nullptr;
  Result (*power)(Device, unsigned*) = nullptr;
  Result (*power_limit)(Device, unsigned*) = nullptr;
  Result (*temperature)(Device, int, unsigned*) = nullptr;
  Result (*ecc_mode)(Device, int*, int*) = nullptr;
  Result (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  Result (*clock_reasons)(Device, unsigned long long*) = nullptr;
  Result (*energy)(Device, unsigned long long*) = nullptr;
};

const Nvml& Nvml::system() {
  static const std::unique_ptr<Nvml> nvml = [] {
    const char* path = std::getenv("EVOTUNE_NVML_LIBRARY");
    return load(path != nullptr && *path != '\0' ? path : "libnvidia-ml.so.1");
  }();
  return *nvml;
}

std::unique_ptr<Nvml> Nvml::load(const std::string& path) {
  std::unique_ptr<Nvml> nvml(new Nvml());
  nvml->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (nvml->library_ == nullptr) {
    nvml->failure_ = "NVML not found (" + path + ")";
    return nvml;
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  // A wanted symbol is optional (an older or newer NVML may lack it); a needed one is not.
  auto bind = [&](auto& target, const char* symbol, bool needed) {
    target = reinterpret_cast<std::remove_reference_t<decltype(target)>>(dlsym(nvml->library_, symbol));
    if (needed && target == nullptr) missing += std::string(missing.empty() ? "" : ", ") + symbol;
  };
  auto need = [&](auto& target, const char* symbol) { bind(target, symbol, true); };
  auto want = [&](auto& target, const char* symbol) { bind(target, symbol, false); };
  need(api->init, "nvmlInit_v2");
  need(api->shutdown, "nvmlShutdown");
  need(api->by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  need(api->uuid, "nvmlDeviceGetUUID");
  need(api->clock, "nvmlDeviceGetClockInfo");
  need(api->max_clock, "nvmlDeviceGetMaxClockInfo");
  want(api->app_clock, "nvmlDeviceGetApplicationsClock");
  want(api->power, "nvmlDeviceGetPowerUsage");
  want(api->power_limit, "nvmlDeviceGetPowerManagementLimit");
  want(api->temperature, "nvmlDeviceGetTemperature");
  want(api->ecc_mode, "nvmlDeviceGetEccMode");
  want(api->mig_mode, "nvmlDeviceGetMigMode");
  want(api->clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api->clock_reasons == nullptr) want(api->clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  want(api->energy, "nvmlDeviceGetTotalEnergyConsumption");
  if (!missing.empty()) {
    nvml->failure_ = "NVML in " + path + " lacks " + missing;
    return nvml;
  }
  if (const Result result = api->init(); result != kSuccess) {
    nvml->failure_ = "nvmlInit failed (NVML error " + std::to_string(result) + ")";
    return nvml;
  }
  nvml->api_ = std::move(api);
  return nvml;
}

Nvml::~Nvml() {
  if (api_) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

std::optional<GpuState> Nvml::read(const std::string& pci_bus_id) const {
  if (!api_) return std::nullopt;
  Device device = nullptr;
  if (api_->by_pci_bus_id(pci_bus_id.c_str(), &device) != kSuccess) return std::nullopt;
  GpuState state;
  state.pci_bus_id = pci_bus_id;
  char uuid[96] = {};
  if (api_->uuid(device, uuid, sizeof uuid) == kSuccess) state.uuid = uuid;
  auto read_unsigned = [&](auto function, std::optional<unsigned>& field, auto... args) {
    unsigned value = 0;
    if (function != nullptr && function(device, args..., &value) == kSuccess) field = value;
  };
  read_unsigned(api_->clock, state.sm_clock_mhz, kClockSm);
  read_unsigned(api_->clock, state.memory_clock_mhz, kClockMemory);
  read_unsigned(api_->max_clock, state.max_sm_clock_mhz, kClockSm);
  read_unsigned(api_->max_clock, state.max_memory_clock_mhz, kClockMemory);
  read_unsigned(api_->app_clock, state.app_sm_clock_mhz, kClockSm);
  read_unsigned(api_->app_clock, state.app_memory_clock_mhz, kClockMemory);
  read_unsigned(api_->power, state.power_mw);
  read_unsigned(api_->power_limit, state.power_limit_mw);
  read_unsigned(api_->temperature, state.temperature_c, kTemperatureGpu);
  int ecc = 0, ecc_pending = 0;
  if (api_->ecc_mode != nullptr && api_->ecc_mode(device, &ecc, &ecc_pending) == kSuccess)
    state.ecc = ecc != 0;
  unsigned mig = 0, mig_pending = 0;
  if (api_->mig_mode != nullptr && api_->mig_mode(device, &mig, &mig_pending) == kSuccess)
    state.mig = mig != 0;
  unsigned long long word = 0;
  if (api_->clock_reasons != nullptr && api_->clock_reasons(device, &word) == kSuccess)
    state.clock_reasons = word;
  if (api_->energy != nullptr && api_->energy(device, &word) == kSuccess) state.energy_mj = word;
  return state;
}

std::optional<std::uint64_t> Nvml::energy_mj(const std::string& pci_bus_id) const {
  if (!api_ || api_->energy == nullptr) return std::nullopt;
  Device device = nullptr;
  if (api_->by_pci_bus_id(pci_bus_id.c_str(), &device) != kSuccess) return std::nullopt;
  unsigned long long millijoules = 0;
  if (api_->energy(device, &millijoules) != kSuccess) return std::nullopt;
  return millijoules;
}

std::optional<unsigned> Nvml::power_mw(const std::string& pci_bus_id) const {
  if (!api_ || api_->power == nullptr) return std::nullopt;
  Device device = nullptr;
  if (api_->by_pci_bus_id(pci_bus_id.c_str(), &device) != kSuccess) return std::nullopt;
  unsigned milliwatts = 0;
  if (api_->power(device, &milliwatts) != kSuccess) return std::nullopt;
  return milliwatts;
}

}  // namespace evotune::cuda
