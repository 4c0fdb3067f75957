// The target's identity, and the choice between the GPUs and a replay.
#include "session/tune_target.hpp"

namespace evotune {

TuneTarget::TuneTarget(DeviceInfo device, std::string nvrtc_version)
    : device_(std::move(device)), nvrtc_version_(std::move(nvrtc_version)) {}

std::unique_ptr<TuneTarget> find_target(const TuneOptions& options, const SearchSpace& space,
                                        const Sizes& sizes) {
  return options.replay_file ? replay_target(options, space, sizes) : gpu_target(options, space, sizes);
}

}  // namespace evotune
