// Typed, path-aware access to a parsed space file.
#include "space/field.hpp"

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "space/expression.hpp"

namespace evotune {
namespace {
std::string kind_of(const nlohmann::ordered_json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  return "an object";
}
}  // namespace

Field::Field(const nlohmann::ordered_json& value, std::string path, const std::string& file)
    : value_(&value), path_(std::move(path)), file_(&file) {}

void Field::fail(const std::string& what) const {
  throw SpaceError(*file_ + ": " + (path_.empty() ? "" : path_ + ": ") + what);
}

Field Field::at(const std::string& key) const {
  auto member = find(key);
  if (!member) Field(*value_, path_.empty() ? key : path_ + "." + key, *file_).fail("missing required field");
  return *member;
}

std::optional<Field> Field::find(const std::string& key) const {
  if (!value_->is_object()) fail("expected an object, found " + kind_of(*value_));
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return Field(*it, path_.empty() ? key : path_ + "." + key, *file_);
}

std::vector<Field> Field::elements() const {
  if (!value_->is_array()) fail("expected a list, found " + kind_of(*value_));
  std::vector<Field> result;
  for (std::size_t i = 0; i < value_->size(); ++i)
    result.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]", *file_);
  return result;
}

std::vector<std::pair<std::string, Field>> Field::members() const {
  if (!value_->is_object()) fail("expected an object, found " + kind_of(*value_));
  std::vector<std::pair<std::string, Field>> result;
  for (const auto& [key, value] : value_->items())
    result.emplace_back(key, Field(value, path_.empty() ? key : path_ + "." + key, *file_));
  return result;
}

void Field::allow_only(std::initializer_list<std::string_view> keys) const {
  for (const auto& [key, member] : members()) {
    if (key == "Description" || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::string known;
    for (const auto name : keys) known += (known.empty() ? "" : ", ") + std::string(name);
    member.fail("unknown field (known: " + known + ")");
  }
}

std::string Field::text() const {
  if (!value_->is_string()) fail("expected a string, found " + kind_of(*value_));
  return value_->get<std::string>();
}

std::string Field::identifier() const {
  std::string name = text();
  if (!is_c_identifier(name)) fail("'" + name + "' is not a C identifier");
  return name;
}

std::int64_t Field::integer() const {
  if (!value_->is_number_integer()) fail("expected an integer, found " + kind_of(*value_));
  return value_->get<std::int64_t>();
}

double Field::number() const {
  if (!value_->is_number()) fail("expected a number, found " + kind_of(*value_));
  return value_->get<double>();
}

bool Field::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false, found " + kind_of(*value_));
  return value_->get<bool>();
}

std::string Field::expression() const {
  if (value_->is_number()) return value_->dump();
  if (!value_->is_string()) fail("expected an expression (a string or a number), found " + kind_of(*value_));
  return value_->get<std::string>();
}

std::vector<std::string> Field::texts() const {
  std::vector<std::string> result;
  for (const auto& element : elements()) result.push_back(element.text());
  return result;
}

std::vector<std::int64_t> Field::integer_list() const {
  nlohmann::ordered_json parsed;
  const nlohmann::ordered_json* list = value_;
  if (value_->is_string()) {
    parsed = nlohmann::ordered_json::parse(value_->get<std::string>(), nullptr, false);
    if (!parsed.is_array()) fail("the string does not hold a list of integers");
    list = &parsed;
  }
  if (!list->is_array()) fail("expected a list of integers, found " + kind_of(*list));
  if (list->empty()) fail("empty list");
  std::vector<std::int64_t> result;
  std::set<std::int64_t> seen;
  for (const auto& element : *list) {
    if (!element.is_number_integer())
      fail("expected integers, found " + kind_of(element) + " " + element.dump());
    const auto value = element.get<std::int64_t>();
    if (!seen.insert(value).second) fail("value " + std::to_string(value) + " listed twice");
    result.push_back(value);
  }
  return result;
}

}  // namespace evotune
