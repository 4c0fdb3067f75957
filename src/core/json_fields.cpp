// The strict JSON object reader: each getter checks the type and names the field when it is wrong.
#include "core/json_fields.hpp"

#include "core/error.hpp"

namespace evotune {

using json = nlohmann::json;

Fields::Fields(const json& object, std::string path, std::string source)
    : Fields(object, std::move(path), std::make_shared<const std::string>(std::move(source))) {}

Fields::Fields(const json& object, std::string path, std::shared_ptr<const std::string> source)
    : object_(object), path_(std::move(path)), source_(std::move(source)) {
  if (!object_.is_object()) fail(path_, "expected a JSON object");
}

void Fields::fail(const std::string& field, const std::string& what) const {
  throw Error(*source_ + ": " + (field.empty() ? "top level" : field) + ": " + what);
}

std::string Fields::name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

std::string Fields::item(const std::string& key, std::size_t index) const {
  return name(key) + "[" + std::to_string(index) + "]";
}

const json& Fields::at(const std::string& key) const {
  if (!has(key)) fail(name(key), "missing");
  return object_.at(key);
}

Fields Fields::object(const std::string& key) const { return Fields(at(key), name(key), source_); }

std::string Fields::text_value(const json& value, const std::string& field) const {
  if (!value.is_string()) fail(field, "expected a string, got " + value.dump());
  return value.get<std::string>();
}

std::string Fields::text(const std::string& key) const { return text_value(at(key), name(key)); }

double Fields::number(const std::string& key) const {
  const json& value = at(key);
  if (!value.is_number()) fail(name(key), "expected a number, got " + value.dump());
  return value.get<double>();
}

bool Fields::boolean(const std::string& key) const {
  const json& value = at(key);
  if (!value.is_boolean()) fail(name(key), "expected true or false, got " + value.dump());
  return value.get<bool>();
}

std::int64_t Fields::integer_value(const json& value, const std::string& field, std::int64_t low,
                                   std::int64_t high) const {
  const bool too_large =
      value.is_number_unsigned() &&
      value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!value.is_number_integer() || too_large) fail(field, "expected an integer, got " + value.dump());
  const auto parsed = value.get<std::int64_t>();
  if (parsed < low || parsed > high)
    fail(field, "expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
                    value.dump());
  return parsed;
}

std::int64_t Fields::integer(const std::string& key, std::int64_t low, std::int64_t high) const {
  return integer_value(at(key), name(key), low, high);
}

int Fields::small_integer(const std::string& key) const {
  return static_cast<int>(integer(key, 0, std::numeric_limits<int>::max()));
}

std::uint64_t Fields::unsigned_integer(const std::string& key) const {
  const json& value = at(key);
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    fail(name(key), "expected an integer in [0, 2^64), got " + value.dump());
  return value.get<std::uint64_t>();
}

std::string Fields::bytes(const std::string& key) const {
  const json& value = at(key);
  if (!value.is_binary()) fail(name(key), "expected binary data, got a " + std::string(value.type_name()));
  const auto& binary = value.get_binary();
  return std::string(binary.begin(), binary.end());
}

std::map<std::string, std::int64_t> Fields::int_map(const std::string& key) const {
  const Fields values = object(key);
  std::map<std::string, std::int64_t> map;
  for (const auto& [entry, value] : values.object_.items())
    map[entry] = values.integer(entry, std::numeric_limits<std::int64_t>::min());
  return map;
}

const json& Fields::array(const std::string& key, std::size_t size) const {
  const json& value = at(key);
  if (!value.is_array()) fail(name(key), "expected an array");
  if (size > 0 && value.size() != size)
    fail(name(key), "expected " + std::to_string(size) + " items, got " + std::to_string(value.size()));
  return value;
}

std::vector<Fields> Fields::objects(const std::string& key) const {
  const json& values = array(key, 0);
  std::vector<Fields> result;
  for (std::size_t i = 0; i < values.size(); ++i) result.push_back(Fields(values[i], item(key, i), source_));
  return result;
}

std::vector<std::string> Fields::texts(const std::string& key) const {
  const json& values = array(key, 0);
  std::vector<std::string> result;
  for (std::size_t i = 0; i < values.size(); ++i) result.push_back(text_value(values[i], item(key, i)));
  return result;
}

std::vector<std::int64_t> Fields::integers(const std::string& key, std::int64_t low, std::int64_t high,
                                           std::size_t size) const {
  const json& values = array(key, size);
  std::vector<std::int64_t> result;
  for (std::size_t i = 0; i < values.size(); ++i)
    result.push_back(integer_value(values[i], item(key, i), low, high));
  return result;
}

void Fields::only(const std::set<std::string>& known) const {
  for (const auto& [key, value] : object_.items())
    if (!known.contains(key)) fail(name(key), "unknown field");
}

}  // namespace evotune
