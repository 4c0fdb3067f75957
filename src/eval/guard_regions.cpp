// Margin sizes, the canary pattern and the comparison behind the out_of_bounds status.
#include "eval/guard_regions.hpp"

#include <algorithm>
#include <cstring>
#include <regex>
#include <sstream>

#include "core/error.hpp"

namespace evotune {
namespace {

constexpr std::size_t kMaxMargin = std::size_t{1} << 20;

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::size_t guard_margin_bytes(std::size_t payload_bytes) {
  const std::size_t wanted = std::clamp(payload_bytes / 64, kGuardAlignment, kMaxMargin);
  return (wanted + kGuardAlignment - 1) / kGuardAlignment * kGuardAlignment;
}

std::vector<std::uint8_t> canary_pattern(std::size_t bytes) {
  std::vector<std::uint8_t> pattern(bytes);
  for (std::size_t word = 0; word * 8 < bytes; ++word) {
    const std::uint64_t value = mix(0xC0FFEE0DDF00DULL ^ word);
    std::memcpy(pattern.data() + word * 8, &value, std::min<std::size_t>(8, bytes - word * 8));
  }
  return pattern;
}

std::optional<GuardBreach> find_breach(const std::string& buffer, GuardSide side, std::size_t payload_bytes,
                                       const std::vector<std::uint8_t>& margin,
                                       const std::vector<std::uint8_t>& canary) {
  if (margin.size() != canary.size()) throw Error("internal: a guard margin and its canary differ in size");
  GuardBreach breach{buffer, side, 0, 0, payload_bytes};
  std::optional<std::size_t> nearest;  // index into the margin
  for (std::size_t i = 0; i < margin.size(); ++i) {
    if (margin[i] == canary[i]) continue;
    ++breach.changed_bytes;
    // Before the buffer the nearest byte is the highest changed one; after it, the lowest.
    if (side == GuardSide::before || !nearest) nearest = i;
  }
  if (!nearest) return std::nullopt;
  const auto index = static_cast<std::int64_t>(*nearest);
  breach.offset = side == GuardSide::before ? index - static_cast<std::int64_t>(margin.size())
                                            : static_cast<std::int64_t>(payload_bytes) + index;
  return breach;
}

std::string describe(const GuardBreach& breach) {
  const std::string where = breach.side == GuardSide::before ? "before its start" : "after its end";
  const std::string distance =
      breach.side == GuardSide::before
          ? std::to_string(-breach.offset) + " before its start"
          : std::to_string(breach.offset - static_cast<std::int64_t>(breach.payload_bytes)) + " past the end";
  return "wrote outside buffer '" + breach.buffer + "': " + std::to_string(breach.changed_bytes) + " bytes " +
         where + " changed, the nearest at byte " + std::to_string(breach.offset) + " (" + distance +
         " of its " + std::to_string(breach.payload_bytes) + " bytes)";
}

std::string allocation_line(const BufferAllocation& allocation) {
  std::ostringstream line;
  line << "exact buffer '" << allocation.buffer << "' (" << allocation.copy << ") at 0x" << std::hex
       << allocation.address << std::dec << ", " << allocation.bytes << " bytes";
  return line.str();
}

std::vector<BufferAllocation> parse_allocation_lines(const std::string& log) {
  static const std::regex line_form(R"(exact buffer '([^']*)' \((\w+)\) at 0x([0-9a-fA-F]+), (\d+) bytes)");
  std::vector<BufferAllocation> allocations;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, line_form)) continue;
    allocations.push_back({match[1], match[2], std::stoull(match[3], nullptr, 16), std::stoull(match[4])});
  }
  return allocations;
}

}  // namespace evotune
