// A space file's values read with core's JsonField (ordered: the file's order is kept), so every complaint
// reads "FILE: Field.Path: what is wrong" and is a SpaceError; plus the readers only space files have.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_fields.hpp"

namespace evotune {

using Field = JsonField<nlohmann::ordered_json>;

// The root of a space file's document, raising SpaceError. `value` must outlive every Field taken from it.
Field space_root(const nlohmann::ordered_json& value, const std::string& file);

// Rejects members not named here ("Path.X: unknown field (known: ...)"); a "Description" member is always
// allowed.
void allow_only(const Field& field, std::initializer_list<std::string_view> keys);
// A string that is a C identifier.
std::string identifier(const Field& field);
// A string, or a number taken as its text.
std::string expression_text(const Field& field);
// A non-empty list of distinct integers, or a T1-style string holding one ("[0, 8, 16]").
std::vector<std::int64_t> integer_list(const Field& field);

}  // namespace evotune
