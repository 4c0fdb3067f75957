// Guard regions: margin sizes and alignment, the canary, and locating a changed byte on either side.
#include "eval/guard_regions.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

namespace evotune {
namespace guard_regions_test {

TEST(GuardRegions, MarginsAreAlignedAtLeast256AndGrowWithTheBufferUpTo1MiB) {
  for (std::size_t bytes : {0ul, 1ul, 4096ul, 1ul << 20, 100ul << 20, 1ul << 34}) {
    const std::size_t margin = guard_margin_bytes(bytes);
    EXPECT_GE(margin, 256u) << bytes;
    EXPECT_LE(margin, 1u << 20) << bytes;
    EXPECT_EQ(margin % kGuardAlignment, 0u) << bytes;
  }
  EXPECT_EQ(guard_margin_bytes(4096), 256u);
  EXPECT_EQ(guard_margin_bytes(4u << 20), 64u << 10);
  EXPECT_EQ(guard_margin_bytes(1ul << 34), 1u << 20);
}

TEST(GuardRegions, CanaryIsDeterministicAndChangesUnderAnyConstantStore) {
  const auto canary = canary_pattern(1024);
  EXPECT_EQ(canary, canary_pattern(1024));
  EXPECT_EQ(std::vector<std::uint8_t>(canary.begin(), canary.begin() + 100), canary_pattern(100));
  // No 4-byte word of the pattern is a zero, a NaN-poison value or a repeat of its neighbour.
  std::set<std::uint32_t> words;
  for (std::size_t i = 0; i < canary.size(); i += 4) {
    std::uint32_t word;
    std::memcpy(&word, canary.data() + i, 4);
    EXPECT_NE(word, 0u);
    EXPECT_NE(word, 0x7fc00000u);
    words.insert(word);
  }
  EXPECT_EQ(words.size(), canary.size() / 4);
}

TEST(GuardRegions, UnchangedMarginIsNoBreach) {
  const auto canary = canary_pattern(256);
  EXPECT_FALSE(find_breach("out", GuardSide::after, 4096, canary, canary));
  EXPECT_FALSE(find_breach("out", GuardSide::before, 4096, canary, canary));
}

TEST(GuardRegions, OneFloatPastTheEndIsFoundAtTheEnd) {
  const auto canary = canary_pattern(256);
  auto margin = canary;
  for (int i = 0; i < 4; ++i) margin[i] = 0;  // out[n] = 0.0f
  const auto breach = find_breach("out", GuardSide::after, 4096, margin, canary);
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->offset, 4096);
  EXPECT_EQ(breach->changed_bytes, 4u);
  EXPECT_EQ(describe(*breach),
            "wrote outside buffer 'out': 4 bytes after its end changed, the nearest at byte 4096 (0 past the "
            "end of its 4096 bytes)");
}

TEST(GuardRegions, OneFloatBeforeTheStartIsFoundJustBeforeIt) {
  const auto canary = canary_pattern(512);
  auto margin = canary;
  for (int i = 508; i < 512; ++i) margin[i] ^= 0xff;  // out[-1]
  margin[3] ^= 1;                                     // and a byte far below
  const auto breach = find_breach("out", GuardSide::before, 4096, margin, canary);
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->offset, -1);
  EXPECT_EQ(breach->changed_bytes, 5u);
  EXPECT_NE(describe(*breach).find("1 before its start"), std::string::npos) << describe(*breach);
}

// The line a worker logs for each exact-size buffer reads back from a stderr with log prefixes around it.
TEST(GuardRegions, AllocationLinesReadBackFromALog) {
  const BufferAllocation out{"out", "variant", 0x7f3a00200000ULL, 4194304};
  EXPECT_EQ(allocation_line(out), "exact buffer 'out' (variant) at 0x7f3a00200000, 4194304 bytes");
  const std::string log = "[2026-11-26 19:00:00.000] [info] " + allocation_line(out) +
                          "\nsomething else\n[info] " + allocation_line({"x", "input", 0xabc, 12}) + "\n";
  const auto read = parse_allocation_lines(log);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].buffer, "out");
  EXPECT_EQ(read[0].copy, "variant");
  EXPECT_EQ(read[0].address, 0x7f3a00200000ULL);
  EXPECT_EQ(read[0].bytes, 4194304u);
  EXPECT_EQ(read[1].buffer, "x");
  EXPECT_EQ(read[1].address, 0xabcu);
  EXPECT_TRUE(parse_allocation_lines("no such lines\n").empty());
}

}  // namespace guard_regions_test
}  // namespace evotune
