// Worker set-up messages and the device list of a run.
#include "session/worker_setup.hpp"

#include <set>
#include <sstream>

#include "core/error.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "eval/wire_format.hpp"

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
  const DeviceInfo first = cuda::query_device(ordinals.at(0));
  for (std::size_t i = 1; i < ordinals.size(); ++i) {
    const DeviceInfo other = cuda::query_device(ordinals[i]);
    if (other.name != first.name || other.arch() != first.arch())
      throw Error("--devices: GPU " + std::to_string(ordinals[i]) + " is a " + other.name + ", GPU " +
                  std::to_string(ordinals[0]) + " a " + first.name + ": one run tunes for one kind of GPU");
  }
  return first;
}

std::vector<nlohmann::json> gpu_worker_setups(const std::vector<int>& ordinals,
                                              const std::vector<BufferSpec>& buffers,
                                              const CompiledKernel& reference, const Tolerances& tolerances,
                                              EvalSettings settings) {
  settings.reset_in_process = false;
  nlohmann::json buffer_list = nlohmann::json::array();
  for (const auto& buffer : buffers) buffer_list.push_back(nlohmann::json(to_json(buffer)));
  std::vector<nlohmann::json> setups;
  for (const int ordinal : ordinals)
    setups.push_back({{"engine", "gpu"},
                      {"device_ordinal", ordinal},
                      {"buffers", buffer_list},
                      {"reference", to_json(reference)},
                      {"tolerances", to_json(tolerances)},
                      {"settings", to_json(settings)}});
  return setups;
}

std::vector<nlohmann::json> replay_worker_setups(const std::filesystem::path& sweep_file, double delay_ms,
                                                 int workers) {
  std::vector<nlohmann::json> setups;
  for (int i = 0; i < workers; ++i)
    setups.push_back({{"engine", "replay"}, {"replay_file", sweep_file.string()}, {"delay_ms", delay_ms}});
  return setups;
}

}  // namespace evotune
