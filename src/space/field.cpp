// The readers only space files have, on core's JsonField.
#include "space/field.hpp"

#include <set>

#include "space/expression.hpp"

namespace evotune {

Field space_root(const nlohmann::ordered_json& value, const std::string& file) {
  return Field(value, "", file, ReadError::space_error);
}

void allow_only(const Field& field, std::initializer_list<std::string_view> keys) {
  std::vector<std::string> known(keys.begin(), keys.end());
  known.emplace_back("Description");
  field.only(known);
}

std::string identifier(const Field& field) {
  std::string name = field.text();
  if (!is_c_identifier(name)) field.fail("'" + name + "' is not a C identifier");
  return name;
}

std::string expression_text(const Field& field) {
  if (field.json().is_number()) return field.json().dump();
  if (!field.json().is_string())
    field.fail("expected an expression (a string or a number), got " + field.describe());
  return field.text();
}

std::vector<std::int64_t> integer_list(const Field& field) {
  nlohmann::ordered_json parsed;
  const nlohmann::ordered_json* list = &field.json();
  if (list->is_string()) {
    parsed = nlohmann::ordered_json::parse(field.text(), nullptr, false);
    if (!parsed.is_array()) field.fail("the string does not hold a list of integers");
    list = &parsed;
  }
  if (!list->is_array()) field.fail("expected a list of integers, got " + field.describe());
  if (list->empty()) field.fail("empty list");
  std::vector<std::int64_t> result;
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& element = (*list)[i];
    const std::string item = field.path() + "[" + std::to_string(i) + "]";
    if (!element.is_number_integer())
      field.fail_at(item, "expected an integer, got " + describe_json(element));
    const auto value = element.get<std::int64_t>();
    if (!seen.insert(value).second) field.fail("value " + std::to_string(value) + " listed twice");
    result.push_back(value);
  }
  return result;
}

}  // namespace evotune
