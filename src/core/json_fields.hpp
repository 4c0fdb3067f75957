// The one strict reader of JSON documents (space files, sweep files, messages): typed getters, unknown
// fields rejected, and every error one line naming the document and the value's path in it.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace evotune {

// A value as an error shows it: a scalar's JSON text (cut at 60 characters), else "a list", "an object" or
// "binary data".
template <class Json>
std::string describe_json(const Json& value);

// What a reader throws: Error, or SpaceError for a search-space file (so callers can tell a bad space
// file from other set-up errors).
enum class ReadError { error, space_error };

// One JSON value and where it sits: the document ("runs/doc.json", "worker answer") and its path there
// ("results[3].timing"). Errors read "SOURCE: path: what is wrong" ("SOURCE: what" at the top level).
// `Json` is nlohmann::json or nlohmann::ordered_json (space files keep their order). The value must
// outlive the JsonField and every JsonField taken from it.
template <class Json>
class JsonField {
 public:
  JsonField(const Json& value, std::string path, std::string source, ReadError error = ReadError::error);

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  // The path of one of this object's members.
  std::string name(const std::string& key) const;
  [[noreturn]] void fail(const std::string& what) const { fail_at(path_, what); }
  // An error about another value of the same document, by its path.
  [[noreturn]] void fail_at(const std::string& path, const std::string& what) const;
  std::string describe() const { return describe_json(*value_); }

  // Members of an object: a required one ("missing required field" otherwise) or an optional one; all of
  // them in the document's order. Each fails on a value that is not an object.
  JsonField at(const std::string& key) const;
  std::optional<JsonField> find(const std::string& key) const;
  std::vector<std::pair<std::string, JsonField>> members() const;
  // Unknown members are errors ("unknown field (known: ...)"): a misspelt optional field would otherwise
  // be ignored without a word.
  void only(const std::vector<std::string>& known) const;
  // The items of a list; `size` > 0 requires exactly that many.
  std::vector<JsonField> elements(std::size_t size = 0) const;

  std::string text() const;
  double number() const;  // any JSON number
  bool boolean() const;
  std::int64_t integer(std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t high = std::numeric_limits<std::int64_t>::max()) const;
  std::uint64_t unsigned_integer() const;
  std::string bytes() const;  // a binary value (CBOR byte string)
  std::vector<std::string> texts() const;

 private:
  struct Source {
    std::string name;
    ReadError error;
  };
  JsonField(const Json& value, std::string path, std::shared_ptr<const Source> source);
  void expect_object() const;

  const Json* value_;
  std::string path_;
  std::shared_ptr<const Source> source_;
};

extern template class JsonField<nlohmann::json>;
extern template class JsonField<nlohmann::ordered_json>;

// One JSON object of a message or a data file, read member by member.
class Fields {
 public:
  // Throws Error when `object` is not a JSON object.
  Fields(const nlohmann::json& object, std::string path, std::string source);

  // `field` is a path, usually name(key).
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    self_.fail_at(field, what);
  }
  std::string name(const std::string& key) const { return self_.name(key); }
  const std::string& path() const { return self_.path(); }
  bool has(const std::string& key) const { return self_.json().contains(key); }
  const nlohmann::json& at(const std::string& key) const { return self_.at(key).json(); }
  Fields object(const std::string& key) const { return Fields(self_.at(key)); }

  std::string text(const std::string& key) const { return self_.at(key).text(); }
  double number(const std::string& key) const { return self_.at(key).number(); }
  bool boolean(const std::string& key) const { return self_.at(key).boolean(); }
  std::int64_t integer(const std::string& key, std::int64_t low = 0,
                       std::int64_t high = std::numeric_limits<std::int64_t>::max()) const {
    return self_.at(key).integer(low, high);
  }
  int small_integer(const std::string& key) const;  // in [0, INT_MAX]
  std::uint64_t unsigned_integer(const std::string& key) const { return self_.at(key).unsigned_integer(); }
  std::string bytes(const std::string& key) const { return self_.at(key).bytes(); }
  std::map<std::string, std::int64_t> int_map(const std::string& key) const;
  // Arrays. `size` > 0 requires exactly that many items.
  std::vector<Fields> objects(const std::string& key) const;
  std::vector<std::string> texts(const std::string& key) const { return self_.at(key).texts(); }
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t low, std::int64_t high,
                                     std::size_t size = 0) const;

  void only(const std::vector<std::string>& known) const { self_.only(known); }

 private:
  explicit Fields(JsonField<nlohmann::json> self);

  JsonField<nlohmann::json> self_;
};

}  // namespace evotune
