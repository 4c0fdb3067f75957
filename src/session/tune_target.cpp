// The target's identity, and the choice between the GPUs and a replay.
#include "session/tune_target.hpp"

namespace evotune {

TuneTarget::TuneTarget(DeviceInfo device, std::string nvrtc_version)
    : device_(std::move(device)), nvrtc_version_(std::move(nvrtc_version)) {}

std::string TuneTarget::throttle_note() const {
  std::string note;
  const std::vector<GpuState> states = gpu_states();
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (!states[i].clock_reasons) continue;
    const std::string reasons = throttle_text(*states[i].clock_reasons);
    if (!reasons.empty())
      note += (note.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(i) + " throttled (" +
              reasons + ")";
  }
  return note;
}

std::unique_ptr<TuneTarget> find_target(const TuneOptions& options, const SearchSpace& space,
                                        const Sizes& sizes) {
  return options.replay_file ? replay_target(options, space, sizes) : gpu_target(options, space, sizes);
}

}  // namespace evotune
