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

// A buffer allocated at exactly its size (EvalSettings::guard_margins off), as the worker logs it for
// `evotune sanitize`: compute-sanitizer names an allocation by its address, this line names its buffer.
struct BufferAllocation {
  std::string buffer;
  std::string copy;  // "reference", "variant" (an output's two copies), "input" or "scratch"
  std::uint64_t address = 0;
  std::size_t bytes = 0;
};

// "exact buffer 'out' (variant) at 0x7f3a00000000, 4194304 bytes"
std::string allocation_line(const BufferAllocation& allocation);

// Every allocation_line() in `log` (a process's stderr: other lines, and log prefixes, are skipped).
std::vector<BufferAllocation> parse_allocation_lines(const std::string& log);

}  // namespace evotune
