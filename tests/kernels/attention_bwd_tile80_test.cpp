// The wgmma attention backward's 80-row query tiles (BLOCK_M 80) on the CPU, with the functions the kernel
// calls (kernels/attention/bwd_tile_layout.cuh): the dS^T tile of 128 keys by 80 query rows with the 32-byte
// swizzle, written by every consumer thread's 4-byte stores and read by dQ^T = K^T dS^T as an MN-major B
// operand through its matrix descriptor (start, LBO, SBO, swizzle mode), which the test emulates from the
// canonical layout of the PTX ISA (checked first against the 128-byte swizzle's, which the 64-row tiles use
// on the GPU); and the dQ^T fragment staged as a unit of the tiled accumulator, read back by the conversion.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../kernels/attention/bwd_tile_layout.cuh"

namespace evotune {
namespace attention_bwd_tile80_test {

constexpr int KEYS = 128;  // BLOCK_N
constexpr int ROWS = 80;   // BLOCK_M

// Where an MN-major operand's element (mn, k) lies for a descriptor of start address `start`, leading and
// stride byte offsets lbo, sbo and the swizzle of `swizzle_bytes` (32 or 128), 16-bit elements: the
// canonical layout ((8, S / 16, m), (8, k)) : ((1, 8, LBO), (S / 2, SBO)) in elements (S the swizzle's
// bytes), then the swizzle on the shared address (32 bytes: bit 4 ^= bit 7; 128 bytes: bits 4..6 ^= bits
// 7..9).
unsigned mn_major_address(unsigned start, unsigned lbo, unsigned sbo, int swizzle_bytes, int mn, int k) {
  const int chunks = swizzle_bytes / 16;  // 16-byte chunks of one swizzle row
  const unsigned plain = start + 2 * (mn % 8) + 16 * ((mn / 8) % chunks) + lbo * (mn / (8 * chunks)) +
                         swizzle_bytes * (k % 8) + sbo * (k / 8);
  const unsigned row_bits = swizzle_bytes == 32 ? 1u : 7u;
  return plain ^ (((plain >> 7) & row_bits) << 4);
}

// The 64-row tiles' dS^T (128-byte swizzle, proven on the GPU): dQ's A = dS^T as [K = keys][M = rows] from
// slab m_chunk, LBO = BLOCK_N x 128, SBO = 1024, k-step kt 2048 bytes further; element (row, key) of the
// emulated descriptor read is where swizzled_offset puts it.
TEST(AttentionBwdTile80, DescriptorModelMatchesThe128ByteTiles) {
  const unsigned base = 0x24000;
  for (int m_chunk = 0; m_chunk < 2; ++m_chunk)
    for (int kt = 0; kt < KEYS / 16; ++kt)
      for (int m = 0; m < 64; ++m)
        for (int k = 0; k < 16; ++k) {
          const int key = 16 * kt + k, row = 64 * m_chunk + m;
          const unsigned start = base + m_chunk * KEYS * 128 + kt * 2048;
          EXPECT_EQ(mn_major_address(start, KEYS * 128, 1024, 128, m, k),
                    base + attn_bwd_layout::swizzled_offset<KEYS>(key, row / 8) + 2 * (row % 8));
        }
}

// Every consumer thread's packed dS^T register (key 64 warpgroup + 16 warp + group + 8 (i % 2), query rows
// 16 kt + 8 (i / 2) + 2 quad, + 1) stored as DsTile::write does with BLOCK_M 80, at a tile start 256-byte
// aligned: each byte once; each warp store's 32 words in 32 banks; and dQ^T's B descriptor of k-step kt
// (start + 512 kt, LBO = BLOCK_N x 32, SBO = 256, 32-byte swizzle) reads element (query n, key 16 kt + k)
// from the bytes its store wrote.
TEST(AttentionBwdTile80, DsTileStoresMatchTheTransposedDqDescriptor) {
  for (const unsigned base : {0x24000u, 0x100u, 0x2b00u}) {
    std::vector<int> writes(2 * KEYS * ROWS, 0);
    std::vector<std::pair<int, int>> held(KEYS * ROWS, {-1, -1});  // (key, row) per 16-bit element
    for (int warpgroup = 0; warpgroup < KEYS / 64; ++warpgroup)
      for (int warp = 0; warp < 4; ++warp)
        for (int kt = 0; kt < ROWS / 16; ++kt)
          for (int i = 0; i < 4; ++i) {
            std::set<int> banks;
            for (int lane = 0; lane < 32; ++lane) {
              const int group = lane / 4, quad = lane % 4;
              const int key = warpgroup * 64 + warp * 16 + group;  // as DsTile::write computes it
              const int offset = attn_bwd_layout::ds_pair_chunk_offset_sw32<KEYS>(key, kt, i) + 4 * quad;
              ASSERT_GE(offset, 0);
              ASSERT_LE(offset + 4, 2 * KEYS * ROWS);
              banks.insert(static_cast<int>((base + offset) / 4 % 32));
              for (int b = 0; b < 4; ++b) ++writes[offset + b];
              for (int half = 0; half < 2; ++half)
                held[offset / 2 + half] = {key + 8 * (i % 2), 16 * kt + 8 * (i / 2) + 2 * quad + half};
            }
            EXPECT_EQ(banks.size(), 32u) << "warp " << warp << ", k-step " << kt << ", register " << i;
          }
    for (int byte = 0; byte < 2 * KEYS * ROWS; ++byte) ASSERT_EQ(writes[byte], 1) << "byte " << byte;
    for (int kt = 0; kt < KEYS / 16; ++kt)
      for (int n = 0; n < ROWS; ++n)
        for (int k = 0; k < 16; ++k) {
          const unsigned address = mn_major_address(base + 512 * kt, KEYS * 32, 256, 32, n, k);
          ASSERT_GE(address, base);
          ASSERT_LT(address, base + 2 * KEYS * ROWS);
          const std::pair<int, int> expected{16 * kt + k, n};
          EXPECT_EQ(held[(address - base) / 2], expected) << "k-step " << kt << ", n " << n << ", k " << k;
        }
  }
}

// swizzled32_offset is the 32-byte swizzle of [slab][row][32 bytes]: chunk c of row r at c ^ ((r / 4) % 2).
TEST(AttentionBwdTile80, Swizzle32MatchesTheLayout) {
  for (int row = 0; row < KEYS; ++row)
    for (int chunk = 0; chunk < ROWS / 8; ++chunk)
      EXPECT_EQ(attn_bwd_layout::swizzled32_offset<KEYS>(row, chunk),
                (chunk / 2) * KEYS * 32 + row * 32 + 16 * ((chunk % 2) ^ ((row / 4) % 2)));
}

// The dQ^T accumulators of a warpgroup (element 4 j + e: column 16 warp + group + 8 (e / 2), row 8 j + 2 quad
// + e % 2; 40 a thread) staged with one 4-byte store each into the unit's image as DqWriter::stage_unit does:
// every float of the 80 x 64 unit once, each warp store's 32 floats in 32 banks, and the conversion's read
// of row r, chunk c (8 floats at dq_unit80_chunk_offset(r, c), two 16-byte loads) finds columns 8 c .. 8 c +
// 7 of row r in order.
TEST(AttentionBwdTile80, TransposedDqStagingIsTheUnitTheConversionReads) {
  std::vector<int> writes(ROWS * 64, 0);
  std::vector<std::pair<int, int>> held(ROWS * 64, {-1, -1});  // (row, column) per float
  for (int warp = 0; warp < 4; ++warp)
    for (int j = 0; j < ROWS / 8; ++j)
      for (int e = 0; e < 4; ++e) {
        std::set<int> banks;
        for (int lane = 0; lane < 32; ++lane) {
          const int group = lane / 4, quad = lane % 4;
          const int row = 8 * j + 2 * quad + e % 2, column = 16 * warp + group + 8 * (e / 2);
          const int offset =
              attn_bwd_layout::dq_unit80_chunk_offset(8 * j + 2 * quad + (e & 1), 2 * warp + (e >> 1)) +
              group;
          ASSERT_GE(offset, 0);
          ASSERT_LT(offset, ROWS * 64);
          ++writes[offset];
          held[offset] = {row, column};
          banks.insert(offset % 32);
        }
        EXPECT_EQ(banks.size(), 32u) << "warp " << warp << ", j " << j << ", e " << e;
      }
  for (int f = 0; f < ROWS * 64; ++f) ASSERT_EQ(writes[f], 1) << "float " << f;
  for (int row = 0; row < ROWS; ++row)
    for (int chunk = 0; chunk < 8; ++chunk) {
      const int first = attn_bwd_layout::dq_unit80_chunk_offset(row, chunk);
      EXPECT_EQ(first % 4, 0) << "16-byte aligned";
      for (int f = 0; f < 8; ++f) {
        const std::pair<int, int> expected{row, 8 * chunk + f};
        EXPECT_EQ(held[first + f], expected);
      }
    }
}

}  // namespace attention_bwd_tile80_test
}  // namespace evotune
