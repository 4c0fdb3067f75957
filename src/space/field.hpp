// A JSON value that knows where it sits in its file, so every complaint reads "FILE: Field.Path: what is
// wrong".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evotune {

class Field {
 public:
  // `value` and `file` must outlive the Field and every Field taken from it.
  Field(const nlohmann::ordered_json& value, std::string path, const std::string& file);

  const std::string& path() const { return path_; }
  const nlohmann::ordered_json& json() const { return *value_; }

  // Throws SpaceError "FILE: PATH: what".
  [[noreturn]] void fail(const std::string& what) const;

  // A required member ("missing required field" otherwise) or an optional one.
  Field at(const std::string& key) const;
  std::optional<Field> find(const std::string& key) const;
  // The elements of a list, and the members of an object in file order.
  std::vector<Field> elements() const;
  std::vector<std::pair<std::string, Field>> members() const;
  // Rejects members not named here ("Path.X: unknown field"); a "Description" member is always allowed.
  void allow_only(std::initializer_list<std::string_view> keys) const;

  std::string text() const;        // a JSON string
  std::string identifier() const;  // a string that is a C identifier
  std::int64_t integer() const;    // a JSON integer
  double number() const;           // any JSON number
  bool boolean() const;
  std::string expression() const;          // a string, or a number taken as its text
  std::vector<std::string> texts() const;  // a list of strings
  // A non-empty list of distinct integers, or a T1-style string holding one ("[0, 8, 16]").
  std::vector<std::int64_t> integer_list() const;

 private:
  const nlohmann::ordered_json* value_;
  std::string path_;
  const std::string* file_;
};

}  // namespace evotune
