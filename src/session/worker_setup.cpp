// Worker set-up messages and the device list of a run.
#include "session/worker_setup.hpp"

#include <set>
#include <sstream>

#include "core/error.hpp"
#include "eval/device_query.hpp"

namespace evotune {

std::vector<int> parse_device_list(const std::string& text, int count) {
  std::vector<int> ordinals;
  if (text == "all") {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  } else {
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
      std::size_t used = 0;
      int ordinal = -1;
      try {
        ordinal = std::stoi(item, &used);
      } catch (const std::exception&) {
      }
      if (used != item.size() || ordinal < 0)
        throw Error("--devices: '" + item + "' is not a GPU ordinal (expected e.g. 0,1 or all)");
      if (ordinal >= count)
        throw Error("--devices: GPU " + std::to_string(ordinal) + " does not exist (" +
                    std::to_string(count) + " found)");
      ordinals.push_back(ordinal);
    }
  }
  if (ordinals.empty()) throw Error("--devices: no GPU named (expected e.g. 0,1 or all)");
  if (std::set<int>(ordinals.begin(), ordinals.end()).size() != ordinals.size())
    throw Error("--devices: a GPU is named twice in '" + text + "'");
  return ordinals;
}

DeviceInfo common_device(const std::vector<int>& ordinals) {
  const DeviceInfo first = query_gpu(ordinals.at(0));
  for (std::size_t i = 1; i < ordinals.size(); ++i) {
    const DeviceInfo other = query_gpu(ordinals[i]);
    if (other.name != first.name || other.arch() != first.arch())
      throw Error("--devices: GPU " + std::to_string(ordinals[i]) + " is a " + other.name + ", GPU " +
                  std::to_string(ordinals[0]) + " a " + first.name + ": one run tunes for one kind of GPU");
  }
  return first;
}

std::vector<WorkerSetup> gpu_worker_setups(
    const std::vector<int>& ordinals, const std::vector<BufferSpec>& buffers, const CompiledKernel& reference,
    const Tolerances& tolerances, EvalSettings settings, const std::vector<std::string>& include_dirs,
    const std::vector<ExtraProblem>& extra_problems, const std::optional<CompiledKernel>& derived_inputs) {
  settings.reset_in_process = false;
  std::vector<WorkerSetup> setups;
  for (const int ordinal : ordinals)
    setups.push_back(GpuSetup{ordinal, buffers, reference, tolerances, settings, include_dirs, extra_problems,
                              std::nullopt, derived_inputs});
  return setups;
}

std::optional<CompiledKernel> derived_inputs_setup(const SearchSpace& space, const std::string& cubin,
                                                   const Sizes& sizes, const DeviceInfo& device) {
  auto launch = space.derived_inputs_launch(sizes, device);
  if (!launch) return std::nullopt;
  return CompiledKernel{cubin, std::move(*launch)};
}

int first_listed_device(const std::string& text) { return parse_device_list(text, gpu_count()).front(); }

std::vector<ExtraProblem> extra_problem_setups(const SearchSpace& space, const Sizes& sizes,
                                               const DeviceInfo& device) {
  std::vector<ExtraProblem> problems;
  for (const Sizes& extra : space.extra_problems(sizes)) {
    Sizes changed;
    for (const auto& [name, value] : extra)
      if (sizes.at(name) != value) changed[name] = value;
    problems.push_back({changed.empty() ? key_value_text(extra) : key_value_text(changed),
                        space.buffers(extra), space.reference_launch(extra, device),
                        space.derived_inputs_launch(extra, device)});
  }
  return problems;
}

std::vector<LaunchSpec> extra_variant_launches(const SearchSpace& space, const Config& config,
                                               const Sizes& sizes, const DeviceInfo& device) {
  std::vector<LaunchSpec> launches;
  for (const Sizes& extra : space.extra_problems(sizes))
    launches.push_back(space.variant_launch(config, extra, device));
  return launches;
}

int extra_validation_rounds(const SearchSpace& space, const Sizes& sizes) {
  std::size_t special = 0;
  for (const auto& buffer : space.buffers(sizes)) special = std::max(special, buffer.special_fills.size());
  return static_cast<int>(special + space.extra_problems(sizes).size());
}

std::vector<WorkerSetup> replay_worker_setups(const std::filesystem::path& sweep_file, double delay_ms,
                                              int workers) {
  return std::vector<WorkerSetup>(static_cast<std::size_t>(workers),
                                  ReplaySetup{sweep_file.string(), delay_ms});
}

}  // namespace evotune
