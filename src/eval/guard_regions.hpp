// Guard regions around the evaluator's device buffers: margin sizes, the canary pattern, and finding the
// bytes a kernel changed outside its buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace evotune {

// Each margin is a multiple of this, so the pointer a kernel gets keeps the allocation's alignment.
inline constexpr std::size_t kGuardAlignment = 256;

// Bytes of canary before and after a buffer of `payload_bytes`: at least 256, about 1/64 of a large buffer
// (a stray index a little past the end still lands in it), at most 1 MiB, a multiple of kGuardAlignment.
std::size_t guard_margin_bytes(std::size_t payload_bytes);

// The canary: `bytes` bytes of a position-dependent pattern (64-bit words of a hash of their index), so a
// stray store of any constant, zeros and NaN included, changes it.
std::vector<std::uint8_t> canary_pattern(std::size_t bytes);

enum class GuardSide { before, after };

struct GuardBreach {
  std::string buffer;
  GuardSide side = GuardSide::after;
  // Byte offset of the changed byte nearest the buffer, from the buffer's start: negative before it,
  // >= payload_bytes after it.
  std::int64_t offset = 0;
  std::size_t changed_bytes = 0;  // in that margin
  std::size_t payload_bytes = 0;
};

// Compares a margin read back from the device with the canary it was filled with (both `margin.size()`
// bytes, from the margin's lowest address). nullopt when unchanged.
std::optional<GuardBreach> find_breach(const std::string& buffer, GuardSide side, std::size_t payload_bytes,
                                       const std::vector<std::uint8_t>& margin,
                                       const std::vector<std::uint8_t>& canary);

// One line: "wrote outside buffer 'out': 4 bytes after its end changed, the nearest at byte 4194304 (0
// past the end of its 4194304 bytes)".
std::string describe(const GuardBreach& breach);

}  // namespace evotune
