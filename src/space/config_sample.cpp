// Corner-first, then evenly spread sampling of configs (compile checks of a space on a time budget).
#include "space/config_sample.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace evotune {

std::vector<Config> sample_configs(const std::vector<Config>& configs, std::size_t count) {
  if (count >= configs.size()) return configs;
  std::map<std::string, std::pair<ParamValue, ParamValue>> range;  // name -> smallest, largest
  for (const Config& config : configs)
    for (const auto& [name, value] : config) {
      auto [it, fresh] = range.try_emplace(name, value, value);
      it->second.first = std::min(it->second.first, value);
      it->second.second = std::max(it->second.second, value);
    }
  std::set<std::size_t> picked;
  for (const auto& [name, extremes] : range)
    for (const ParamValue wanted : {extremes.first, extremes.second})
      for (std::size_t i = 0; i < configs.size(); ++i)
        if (configs[i].at(name) == wanted) {
          picked.insert(i);
          break;
        }
  // Evenly spaced positions, finer each round, until the sample is full.
  for (std::size_t slots = count; picked.size() < count; slots *= 2)
    for (std::size_t k = 0; k < slots && picked.size() < count; ++k)
      picked.insert(k * configs.size() / slots);
  std::vector<Config> sample;
  for (const std::size_t i : picked) sample.push_back(configs[i]);
  return sample;
}

}  // namespace evotune
