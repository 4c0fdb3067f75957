// Config (one point of a search space) and problem sizes: plain name -> integer maps.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace evotune {

using ParamValue = std::int64_t;

// Tuning-parameter name -> value. Ordered by name, so its canonical text is stable.
using Config = std::map<std::string, ParamValue>;

// Problem-size name -> value (B, H, S, D, CAUSAL, ...).
using Sizes = std::map<std::string, std::int64_t>;

// Canonical compact JSON text, e.g. {"BLOCK_M":64,"BLOCK_N":32}. Same map, same text.
std::string canonical_json(const std::map<std::string, std::int64_t>& values);

// Parses the text canonical_json writes (any JSON object of integers). Throws Error.
std::map<std::string, std::int64_t> parse_int_map(const std::string& json_text);

// "B=1,H=8,S=512" in the map's key order; another separator gives e.g. "B=1 H=8 S=512".
std::string key_value_text(const std::map<std::string, std::int64_t>& values, char separator = ',');

}  // namespace evotune
