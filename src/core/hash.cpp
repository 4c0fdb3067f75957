// FNV-1a: tiny, dependency-free and fixed by its definition, so stored hashes stay valid across builds.
#include "core/hash.hpp"

#include <cstdio>

namespace evotune {

std::uint64_t fnv1a64(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (const unsigned char byte : text) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string hex_hash(std::string_view text) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(fnv1a64(text)));
  return buffer;
}

}  // namespace evotune
