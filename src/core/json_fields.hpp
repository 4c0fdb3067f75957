// Fields: the one strict reader of JSON objects (files and messages): typed getters, unknown fields
// rejected, and every error one line naming where it came from and the field's path.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace evotune {

// One JSON object and its path in the document ("results[3].timing"). Errors are Error with the text
// "SOURCE: path.field: what is wrong", SOURCE naming the document (a file, "a worker's answer", ...).
// The object must outlive the Fields made from it.
class Fields {
 public:
  // Throws Error when `object` is not a JSON object.
  Fields(const nlohmann::json& object, std::string path, std::string source);

  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  // The path of one of this object's fields, for fail().
  std::string name(const std::string& key) const;
  const std::string& path() const { return path_; }
  bool has(const std::string& key) const { return object_.contains(key); }
  const nlohmann::json& at(const std::string& key) const;  // Error when missing
  Fields object(const std::string& key) const;

  std::string text(const std::string& key) const;
  double number(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t low = 0,
                       std::int64_t high = std::numeric_limits<std::int64_t>::max()) const;
  int small_integer(const std::string& key) const;  // in [0, INT_MAX]
  std::uint64_t unsigned_integer(const std::string& key) const;
  std::string bytes(const std::string& key) const;  // a binary value (CBOR byte string)
  std::map<std::string, std::int64_t> int_map(const std::string& key) const;
  // Arrays. `size` > 0 requires exactly that many items.
  std::vector<Fields> objects(const std::string& key) const;
  std::vector<std::string> texts(const std::string& key) const;
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t low, std::int64_t high,
                                     std::size_t size = 0) const;

  // Unknown fields are errors: a misspelt optional field would otherwise be ignored without a word.
  void only(const std::set<std::string>& known) const;

 private:
  Fields(const nlohmann::json& object, std::string path, std::shared_ptr<const std::string> source);
  const nlohmann::json& array(const std::string& key, std::size_t size) const;
  std::string item(const std::string& key, std::size_t index) const;
  std::string text_value(const nlohmann::json& value, const std::string& field) const;
  std::int64_t integer_value(const nlohmann::json& value, const std::string& field, std::int64_t low,
                             std::int64_t high) const;

  const nlohmann::json& object_;
  std::string path_;
  std::shared_ptr<const std::string> source_;
};

}  // namespace evotune
