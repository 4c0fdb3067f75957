// TuneTarget: where a tuning run's variants run, the GPUs of this machine or a recorded sweep answering for
// them, and all that depends on which: the device results are stored under, whether variants are compiled,
// how the workers are set up.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/gpu_state.hpp"
#include "session/tune_options.hpp"
#include "session/variant_compiler.hpp"
#include "space/search_space.hpp"
#include "worker/messages.hpp"

namespace evotune {

class TuneTarget {
 public:
  virtual ~TuneTarget() = default;

  // The device the results are stored under, and the NVRTC version stored with it.
  const DeviceInfo& device() const { return device_; }
  const std::string& nvrtc_version() const { return nvrtc_version_; }

  // Whether variants are compiled before they run: a replay answers from the config alone.
  virtual bool compiles_variants() const = 0;
  // Where the variants run, for the run's first log line: "2 GPU worker(s)", "replay of FILE".
  virtual std::string where() const = 0;
  // One set-up message per worker process. `compiler` is null where compiles_variants() is false; the GPUs
  // compile the reference kernel with it (Error when it does not compile).
  virtual std::vector<WorkerSetup> worker_setups(VariantCompiler* compiler) const = 0;
  // A log line on what the workers measured while setting up (the reference kernel's time); may be empty.
  virtual std::string describe_ready(double reference_ms) const = 0;
  // The state of each GPU the run uses (NVML), in worker order; empty without NVML or GPUs (a replay).
  virtual std::vector<GpuState> gpu_states() const { return {}; }
  // "" while no GPU's clocks are held down; else "GPU 0 throttled (sw_thermal)", for the progress line.
  std::string throttle_note() const;

 protected:
  TuneTarget(DeviceInfo device, std::string nvrtc_version);

 private:
  DeviceInfo device_;
  std::string nvrtc_version_;
};

// The GPUs of options.devices: Error when there is none, or when they are of different kinds.
std::unique_ptr<TuneTarget> gpu_target(const TuneOptions& options, const SearchSpace& space,
                                       const Sizes& sizes);

// The sweep of options.replay_file: Error when it records another space or another problem.
std::unique_ptr<TuneTarget> replay_target(const TuneOptions& options, const SearchSpace& space,
                                          const Sizes& sizes);

// The replay when options.replay_file is set, else the GPUs.
std::unique_ptr<TuneTarget> find_target(const TuneOptions& options, const SearchSpace& space,
                                        const Sizes& sizes);

}  // namespace evotune
