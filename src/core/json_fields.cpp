// The strict JSON reader: each getter checks the type and names the value's path when it is wrong.
#include "core/json_fields.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evotune {

template <class Json>
JsonField<Json>::JsonField(const Json& value, std::string path, std::string source, ReadError error)
    : JsonField(value, std::move(path), std::make_shared<const Source>(Source{std::move(source), error})) {}

template <class Json>
JsonField<Json>::JsonField(const Json& value, std::string path, std::shared_ptr<const Source> source)
    : value_(&value), path_(std::move(path)), source_(std::move(source)) {}

template <class Json>
std::string JsonField<Json>::name(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

template <class Json>
void JsonField<Json>::fail_at(const std::string& path, const std::string& what) const {
  const std::string message = source_->name + ": " + (path.empty() ? "" : path + ": ") + what;
  if (source_->error == ReadError::space_error) throw SpaceError(message);
  throw Error(message);
}

template <class Json>
std::string describe_json(const Json& value) {
  if (value.is_array()) return "a list";
  if (value.is_object()) return "an object";
  if (value.is_binary()) return "binary data";
  constexpr std::size_t kShown = 60;
  const std::string text = value.dump();
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

template <class Json>
void JsonField<Json>::expect_object() const {
  if (!value_->is_object()) fail("expected an object, got " + describe());
}

template <class Json>
JsonField<Json> JsonField<Json>::at(const std::string& key) const {
  auto member = find(key);
  if (!member) fail_at(name(key), "missing required field");
  return *member;
}

template <class Json>
std::optional<JsonField<Json>> JsonField<Json>::find(const std::string& key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonField(*it, name(key), source_);
}

template <class Json>
std::vector<std::pair<std::string, JsonField<Json>>> JsonField<Json>::members() const {
  expect_object();
  std::vector<std::pair<std::string, JsonField>> result;
  for (const auto& [key, value] : value_->items())
    result.emplace_back(key, JsonField(value, name(key), source_));
  return result;
}

template <class Json>
void JsonField<Json>::only(const std::vector<std::string>& known) const {
  for (const auto& [key, member] : members()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
    member.fail("unknown field (known: " + list + ")");
  }
}

template <class Json>
std::vector<JsonField<Json>> JsonField<Json>::elements(std::size_t size) const {
  if (!value_->is_array()) fail("expected a list, got " + describe());
  if (size > 0 && value_->size() != size)
    fail("expected " + std::to_string(size) + " items, got " + std::to_string(value_->size()));
  std::vector<JsonField> result;
  for (std::size_t i = 0; i < value_->size(); ++i)
    result.push_back(JsonField((*value_)[i], path_ + "[" + std::to_string(i) + "]", source_));
  return result;
}

template <class Json>
std::string JsonField<Json>::text() const {
  if (!value_->is_string()) fail("expected a string, got " + describe());
  return value_->template get<std::string>();
}

template <class Json>
double JsonField<Json>::number() const {
  if (!value_->is_number()) fail("expected a number, got " + describe());
  return value_->template get<double>();
}

template <class Json>
bool JsonField<Json>::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false, got " + describe());
  return value_->template get<bool>();
}

template <class Json>
std::int64_t JsonField<Json>::integer(std::int64_t low, std::int64_t high) const {
  const bool too_large = value_->is_number_unsigned() &&
                         value_->template get<std::uint64_t>() >
                             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!value_->is_number_integer() || too_large) fail("expected an integer, got " + describe());
  const auto parsed = value_->template get<std::int64_t>();
  if (parsed < low || parsed > high)
    fail("expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " +
         describe());
  return parsed;
}

template <class Json>
std::uint64_t JsonField<Json>::unsigned_integer() const {
  if (!value_->is_number_unsigned() &&
      !(value_->is_number_integer() && value_->template get<std::int64_t>() >= 0))
    fail("expected an integer in [0, 2^64), got " + describe());
  return value_->template get<std::uint64_t>();
}

template <class Json>
std::string JsonField<Json>::bytes() const {
  if (!value_->is_binary()) fail("expected binary data, got " + describe());
  const auto& binary = value_->get_binary();
  return std::string(binary.begin(), binary.end());
}

template <class Json>
std::vector<std::string> JsonField<Json>::texts() const {
  std::vector<std::string> result;
  for (const auto& element : elements()) result.push_back(element.text());
  return result;
}

template class JsonField<nlohmann::json>;
template class JsonField<nlohmann::ordered_json>;
template std::string describe_json(const nlohmann::json&);
template std::string describe_json(const nlohmann::ordered_json&);

Fields::Fields(const nlohmann::json& object, std::string path, std::string source)
    : Fields(JsonField<nlohmann::json>(object, std::move(path), std::move(source))) {}

Fields::Fields(JsonField<nlohmann::json> self) : self_(std::move(self)) {
  if (!self_.json().is_object()) self_.fail("expected an object, got " + self_.describe());
}

int Fields::small_integer(const std::string& key) const {
  return static_cast<int>(integer(key, 0, std::numeric_limits<int>::max()));
}

std::map<std::string, std::int64_t> Fields::int_map(const std::string& key) const {
  std::map<std::string, std::int64_t> map;
  for (const auto& [entry, value] : object(key).self_.members()) map[entry] = value.integer();
  return map;
}

std::vector<Fields> Fields::objects(const std::string& key) const {
  std::vector<Fields> result;
  for (const auto& element : self_.at(key).elements()) result.push_back(Fields(element));
  return result;
}

std::vector<std::int64_t> Fields::integers(const std::string& key, std::int64_t low, std::int64_t high,
                                           std::size_t size) const {
  std::vector<std::int64_t> result;
  for (const auto& element : self_.at(key).elements(size)) result.push_back(element.integer(low, high));
  return result;
}

}  // namespace evotune
