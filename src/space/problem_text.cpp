// Parsing and checking --problem overrides.
#include "space/problem_text.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace evotune {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string list_text(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

}  // namespace

Sizes resolve_sizes(const std::vector<SizeSpec>& specs, const std::string& overrides) {
  Sizes sizes;
  for (const auto& spec : specs) sizes[spec.name] = spec.default_value;
  if (trim(overrides).empty()) return sizes;

  Sizes given;
  std::size_t start = 0;
  while (start <= overrides.size()) {
    const auto comma = std::min(overrides.find(',', start), overrides.size());
    const std::string item = trim(overrides.substr(start, comma - start));
    start = comma + 1;
    const auto equals = item.find('=');
    const std::string key = trim(item.substr(0, equals));
    const std::string number = equals == std::string::npos ? "" : trim(item.substr(equals + 1));
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (key.empty() || number.empty() || error != std::errc() || end != number.data() + number.size())
      throw Error("problem: malformed item '" + item + "' (expected NAME=INTEGER, e.g. S=512)");
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const SizeSpec& s) { return s.name == key; });
    if (spec == specs.end()) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw Error("problem: unknown size '" + key + "' (known: " + known + ")");
    }
    if (!given.emplace(key, value).second) throw Error("problem: size '" + key + "' given twice");
    const auto& allowed = spec->allowed;
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      throw Error("problem: " + key + "=" + std::to_string(value) +
                  " is not allowed (allowed: " + list_text(allowed) + ")");
    if (allowed.empty() && value <= 0)
      throw Error("problem: " + key + "=" + std::to_string(value) + " is not positive");
    sizes[key] = value;
  }
  return sizes;
}

}  // namespace evotune
