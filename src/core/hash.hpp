// Stable content hash (64-bit FNV-1a, 16 hex digits): same text, same hash, on every machine and build.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace evotune {

std::uint64_t fnv1a64(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL);
std::string hex_hash(std::string_view text);

}  // namespace evotune
