// Parses "NAME=V,NAME=V" over a base config.
#include "space/config_text.hpp"

#include <set>
#include <sstream>

#include "core/error.hpp"

namespace evotune {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

Config override_config(const Config& base, const std::string& text) {
  Config config = base;
  std::set<std::string> given;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    item = trimmed(item);
    const auto equals = item.find('=');
    if (equals == std::string::npos) throw Error("config item '" + item + "' is not NAME=VALUE");
    const std::string name = trimmed(item.substr(0, equals));
    const std::string value = trimmed(item.substr(equals + 1));
    if (!base.count(name))
      throw Error("config item '" + item + "': '" + name + "' is not a tuning parameter");
    if (!given.insert(name).second) throw Error("config item '" + item + "': '" + name + "' given twice");
    std::size_t used = 0;
    try {
      config[name] = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw Error("config item '" + item + "': '" + value + "' is not an integer");
  }
  return config;
}

}  // namespace evotune
