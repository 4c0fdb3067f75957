// `evotune devices`: the GPUs this machine has and the limits the constraints see.
#include <cstdio>

#include "cli/commands.hpp"
#include "tools/machine_devices.hpp"

namespace evotune::cli {

void add_devices_command(CLI::App& app) {
  auto* command = app.add_subcommand("devices", "List the CUDA devices and their limits");
  command->callback([] {
    const MachineDevices machine = machine_devices();
    std::printf("NVRTC %s\n", machine.nvrtc_version.c_str());
    if (machine.gpus.empty()) {
      std::printf("no CUDA device: %s\n", machine.no_gpu_reason.c_str());
      return;
    }
    for (std::size_t ordinal = 0; ordinal < machine.gpus.size(); ++ordinal) {
      const DeviceInfo& d = machine.gpus[ordinal];
      std::printf(
          "%zu: %s (%s), driver %d, %d SMs, L2 %lld KiB, %lld MiB, smem/block (opt-in) %d B, smem/SM %d B, "
          "regs/SM %d, threads/block %d\n",
          ordinal, d.name.c_str(), d.arch().c_str(), d.driver_version, d.sm_count,
          static_cast<long long>(d.l2_bytes / 1024), static_cast<long long>(d.global_mem_bytes >> 20),
          d.max_smem_per_block, d.smem_per_sm, d.regs_per_sm, d.max_threads_per_block);
    }
  });
}

}  // namespace evotune::cli
