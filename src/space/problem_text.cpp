// Parsing and checking --problem overrides.
#include "space/problem_text.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "space/problem_items.hpp"

namespace evotune {
namespace {

std::string list_text(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

}  // namespace

Sizes resolve_sizes(const std::vector<SizeSpec>& specs, const std::string& overrides) {
  Sizes sizes;
  for (const auto& spec : specs) sizes[spec.name] = spec.default_value;
  if (trim_blanks(overrides).empty()) return sizes;

  Sizes given;
  for (const std::string& item : comma_items(overrides)) {
    const auto equals = item.find('=');
    const std::string key = trim_blanks(item.substr(0, equals));
    const std::string number = equals == std::string::npos ? "" : trim_blanks(item.substr(equals + 1));
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
