// Canonical text forms of configs and problem sizes.
#include "core/config.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace evotune {

std::string canonical_json(const std::map<std::string, std::int64_t>& values) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : values) object[name] = value;
  return object.dump();  // nlohmann orders object keys, so equal maps give equal text
}

std::map<std::string, std::int64_t> parse_int_map(const std::string& json_text) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("not valid JSON: " + json_text);
  }
  if (!object.is_object()) throw Error("expected a JSON object of integers: " + json_text);
  std::map<std::string, std::int64_t> values;
  for (const auto& [name, value] : object.items()) {
    if (!value.is_number_integer()) throw Error("'" + name + "' is not an integer in " + json_text);
    values[name] = value.get<std::int64_t>();
  }
  return values;
}

std::string key_value_text(const std::map<std::string, std::int64_t>& values, char separator) {
  std::string text;
  for (const auto& [name, value] : values) {
    if (!text.empty()) text += separator;
    text += name + '=' + std::to_string(value);
  }
  return text;
}

}  // namespace evotune
