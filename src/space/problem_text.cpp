// Parsing and checking --problem overrides.
#include "space/problem_text.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "space/expression.hpp"
#include "space/problem_items.hpp"

namespace evotune {
namespace {

std::string list_text(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

}  // namespace

std::optional<std::string> size_value_error(const SizeSpec& spec, std::int64_t value) {
  const auto& allowed = spec.allowed;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    return "is not allowed (allowed: " + list_text(allowed) + ")";
  if (allowed.empty() && value <= 0) return "is not positive";
  return std::nullopt;
}

Sizes with_defaults(const std::vector<SizeSpec>& specs, Sizes given) {
  for (const auto& spec : specs)
    if (spec.default_expression.empty()) given.emplace(spec.name, spec.default_value);
  return complete_sizes(specs, std::move(given));
}

Sizes complete_sizes(const std::vector<SizeSpec>& specs, Sizes sizes) {
  for (const auto& spec : specs) {
    if (spec.default_expression.empty() || sizes.count(spec.name)) continue;
    VariableTable table;
    for (const auto& [name, value] : sizes) table.set(table.add(name), static_cast<double>(value));
    Expression expression(spec.default_expression);
    expression.bind(table);  // the space file names only sizes declared before this one
    const double value = expression.evaluate();
    if (!(value >= 1 && value <= 9.0e15) || value != static_cast<double>(static_cast<std::int64_t>(value)))
      throw ProblemError(spec.name + "'s default " + spec.default_expression + " is not a positive integer");
    const auto whole = static_cast<std::int64_t>(value);
    if (!spec.allowed.empty() &&
        std::find(spec.allowed.begin(), spec.allowed.end(), whole) == spec.allowed.end())
      throw ProblemError(spec.name + "'s default " + spec.default_expression + " = " + std::to_string(whole) +
                         " is not allowed (allowed: " + list_text(spec.allowed) + ")");
    sizes[spec.name] = whole;
  }
  return sizes;
}

Sizes resolve_sizes(const std::vector<SizeSpec>& specs, const std::string& overrides) {
  Sizes given;
  if (trim_blanks(overrides).empty()) return with_defaults(specs, given);
  for (const std::string& item : comma_items(overrides)) {
    const auto equals = item.find('=');
    const std::string key = trim_blanks(item.substr(0, equals));
    const std::string number = equals == std::string::npos ? "" : trim_blanks(item.substr(equals + 1));
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (key.empty() || number.empty() || error != std::errc() || end != number.data() + number.size())
      throw ProblemError("malformed item '" + item + "' (expected NAME=INTEGER, e.g. S=512)");
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const SizeSpec& s) { return s.name == key; });
    if (spec == specs.end()) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw ProblemError("unknown size '" + key + "' (known: " + known + ")");
    }
    if (!given.emplace(key, value).second) throw ProblemError("size '" + key + "' given twice");
    if (const auto why = size_value_error(*spec, value))
      throw ProblemError(key + "=" + std::to_string(value) + " " + *why);
  }
  return with_defaults(specs, std::move(given));
}

}  // namespace evotune
