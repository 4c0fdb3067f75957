// What the tuner needs to know about a GPU: identity for the store, limits for constraints.
#pragma once

#include <cstdint>
#include <string>

namespace evotune {

struct DeviceInfo {
  std::string name;  // "NVIDIA H100 80GB HBM3"; "offline sm_90" for compile-only use
  int cc_major = 0;  // compute capability
  int cc_minor = 0;
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000; 0 offline
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  int max_threads_per_block = 0;
  int max_smem_per_block = 0;  // opt-in maximum for dynamic + static shared memory, bytes
  int smem_per_sm = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  int warp_size = 32;

  // "sm_90"; an arch-specific suffix ("a") is added by the compiler when a template asks for it.
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
};

}  // namespace evotune
