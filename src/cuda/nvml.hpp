// NVML, loaded at run time like the driver API (libnvidia-ml.so.1, or the file EVOTUNE_NVML_LIBRARY names):
// reads a GPU's clocks, power, temperature, modes and clock reasons. A machine without NVML reads nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/gpu_state.hpp"

namespace evotune::cuda {

class Nvml {
 public:
  // The process's NVML (loaded and initialised once).
  static const Nvml& system();
  // A library at `path` (tests load a fake one).
  static std::unique_ptr<Nvml> load(const std::string& path);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return failure_.empty(); }
  // Why NVML is not available ("" when it is).
  const std::string& failure() const { return failure_; }
  // The state of the GPU at this PCI bus id (as cuDeviceGetPCIBusId writes it); nullopt when NVML is not
  // available or does not know the GPU. Fields NVML does not support on this GPU stay empty.
  std::optional<GpuState> read(const std::string& pci_bus_id) const;
  // Only the energy counter (mJ since the driver loaded) or the power draw (mW): cheap enough to read around
  // a loop of launches. nullopt where NVML, the GPU or the reading is not available.
  std::optional<std::uint64_t> energy_mj(const std::string& pci_bus_id) const;
  std::optional<unsigned> power_mw(const std::string& pci_bus_id) const;

 private:
  Nvml() = default;
  struct Api;
  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  std::string failure_;
};

}  // namespace evotune::cuda
