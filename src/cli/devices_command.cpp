// `evotune devices`: the GPUs this machine has and the limits the constraints see.
#include <cstdio>

#include "cli/commands.hpp"
#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"

namespace evotune::cli {

void add_devices_command(CLI::App& app) {
  auto* command = app.add_subcommand("devices", "List the CUDA devices and their limits");
  command->callback([] {
    const int count = cuda::device_count();
    std::printf("NVRTC %s\n", Compiler::nvrtc_version().c_str());
    if (count == 0) {
      std::printf("no CUDA device: %s\n", cuda::no_device_reason().c_str());
      return;
    }
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      const DeviceInfo d = cuda::query_device(ordinal);
      std::printf(
          "%d: %s (%s), driver %d, %d SMs, L2 %lld KiB, %lld MiB, smem/block (opt-in) %d B, smem/SM %d B, "
          "regs/SM %d, threads/block %d\n",
          ordinal, d.name.c_str(), d.arch().c_str(), d.driver_version, d.sm_count,
          static_cast<long long>(d.l2_bytes / 1024), static_cast<long long>(d.global_mem_bytes >> 20),
          d.max_smem_per_block, d.smem_per_sm, d.regs_per_sm, d.max_threads_per_block);
    }
  });
}

}  // namespace evotune::cli
