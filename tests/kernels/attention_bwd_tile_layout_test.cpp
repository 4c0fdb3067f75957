// The wgmma attention backward's dS^T tile on the CPU (kernels/attention/bwd_tile_layout.cuh, the functions
// the kernel calls): every consumer thread of every warpgroup writes its packed dS^T fragment with 4-byte
// stores (DS_STMATRIX 0) and with stmatrix.x4 (DS_STMATRIX 1), both emulated here, for each tile shape
// (BLOCK_N keys x BLOCK_M query rows). Each 16-bit element (key, query row) must land at the byte the
// 128-byte-swizzled layout gives it, which the test computes on its own (rows are keys, columns query rows,
// slabs of 64 columns, 16-byte chunk c of row r at c ^ (r % 8)), every byte of the tile written exactly once,
// both paths alike; and each stmatrix's 8 matrix rows must lie in 8 different 16-byte bank groups.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../kernels/attention/bwd_tile_layout.cuh"

namespace evotune {
namespace attention_bwd_tile_layout_test {

// Where the layout puts element (key, row) of a dS^T tile of `keys` rows: byte offset.
int layout_offset(int keys, int key, int row) {
  const int slab = row / 64, chunk = (row % 64) / 8;
  return slab * keys * 128 + key * 128 + ((chunk ^ (key % 8)) * 16) + 2 * (row % 8);
}

// The two 16-bit elements a packed fragment register holds (its low half first), from the wgmma accumulator
// layout (element 4 j + e of thread t of a warpgroup: key 16 (t / 32) + (t % 32) / 4 + 8 (e / 2), query
// row 8 j + 2 (t % 4) + e % 2) and the packing frag[kt][i] = pack(acc[8 kt + 2 i], acc[8 kt + 2 i + 1]).
struct Element {
  int key;  // of the block
  int row;  // query row of the tile
};
Element packed_element(int warpgroup, int thread, int kt, int i, int half) {
  const int e_index = 8 * kt + 2 * i + half;  // accumulator element 4 j + e
  const int j = e_index / 4, e = e_index % 4;
  const int warp = thread / 32, group = (thread % 32) / 4, quad = thread % 4;
  return {64 * warpgroup + 16 * warp + group + 8 * (e / 2), 8 * j + 2 * quad + e % 2};
}

// A tile's bytes, each counting the stores that wrote it, and the elements they held.
struct Tile {
  int keys, rows;
  std::vector<int> writes;
  std::vector<Element> held;  // per byte pair: the element stored there

  Tile(int keys_, int rows_) : keys(keys_), rows(rows_), writes(2 * keys_ * rows_), held(keys_ * rows_) {}
  // A 4-byte word at byte `offset` holding the register's two elements.
  void store_word(int offset, const Element (&elements)[2]) {
    ASSERT_GE(offset, 0);
    ASSERT_LE(offset + 4, 2 * keys * rows);
    ASSERT_EQ(offset % 4, 0);
    for (int b = 0; b < 4; ++b) ++writes[offset + b];
    held[offset / 2] = elements[0];
    held[offset / 2 + 1] = elements[1];
  }
  void expect_layout() const {
    for (int byte = 0; byte < 2 * keys * rows; ++byte) EXPECT_EQ(writes[byte], 1) << "byte " << byte;
    for (int key = 0; key < keys; ++key)
      for (int row = 0; row < rows; ++row) {
        const Element& e = held[layout_offset(keys, key, row) / 2];
        EXPECT_EQ(e.key, key) << "element (" << key << ", " << row << ")";
        EXPECT_EQ(e.row, row) << "element (" << key << ", " << row << ")";
      }
  }
};

template <int KEYS, int ROWS>
Tile four_byte_stores() {
  Tile tile(KEYS, ROWS);
  for (int warpgroup = 0; warpgroup < KEYS / 64; ++warpgroup)
    for (int t = 0; t < 128; ++t) {
      const int key = warpgroup * 64 + (t / 32) * 16 + (t % 32) / 4;  // as DsTile::write computes it
      for (int kt = 0; kt < ROWS / 16; ++kt)
        for (int i = 0; i < 4; ++i) {
          const Element pair[2] = {packed_element(warpgroup, t, kt, i, 0),
                                   packed_element(warpgroup, t, kt, i, 1)};
          tile.store_word(attn_bwd_layout::ds_pair_chunk_offset<KEYS>(key, kt, i) + 4 * (t % 4), pair);
        }
    }
  return tile;
}

// stmatrix.sync.aligned.m8n8.x4 (PTX ISA): lane 8 m + r gives the address of row r of matrix m; register m
// of lane 4 r + c holds elements 2 c and 2 c + 1 of that row, which land at bytes 4 c, + 2 of it. The tile
// starts at shared address `base` (1024-aligned in the kernel, as the swizzle needs), as DsTile::write
// addresses it: k-step 0's row address, then each k-step's from it.
template <int KEYS, int ROWS>
Tile stmatrix_stores(unsigned base) {
  Tile tile(KEYS, ROWS);
  for (int warpgroup = 0; warpgroup < KEYS / 64; ++warpgroup)
    for (int warp = 0; warp < 4; ++warp) {
      const int key0 = warpgroup * 64 + warp * 16;
      for (int kt = 0; kt < ROWS / 16; ++kt) {
        int row_address[32];
        for (int lane = 0; lane < 32; ++lane) {
          const unsigned row0 = base + attn_bwd_layout::ds_matrix_row_offset<KEYS>(key0, lane);
          row_address[lane] = static_cast<int>(attn_bwd_layout::ds_matrix_row_address<KEYS>(row0, kt) - base);
          EXPECT_EQ(row_address[lane] % 16, 0) << "stmatrix rows are 16-byte aligned";
        }
        for (int m = 0; m < 4; ++m) {
          std::set<int> bank_groups;
          for (int r = 0; r < 8; ++r) bank_groups.insert(row_address[8 * m + r] / 16 % 8);
          EXPECT_EQ(bank_groups.size(), 8u) << "matrix " << m << " of k-step " << kt << ": bank conflict";
        }
        for (int lane = 0; lane < 32; ++lane) {
          const int t = 32 * warp + lane;
          for (int m = 0; m < 4; ++m) {
            const Element pair[2] = {packed_element(warpgroup, t, kt, m, 0),
                                     packed_element(warpgroup, t, kt, m, 1)};
            tile.store_word(row_address[8 * m + lane / 4] + 4 * (lane % 4), pair);
          }
        }
      }
    }
  return tile;
}

TEST(AttentionBwdTileLayout, SwizzleMatchesTheLayout) {
  for (int row = 0; row < 128; ++row)
    for (int chunk = 0; chunk < 16; ++chunk)
      EXPECT_EQ(attn_bwd_layout::swizzled_offset<128>(row, chunk), layout_offset(128, row, 8 * chunk));
}

TEST(AttentionBwdTileLayout, FourByteStoresWriteTheSwizzledTile) {
  four_byte_stores<64, 64>().expect_layout();
  four_byte_stores<64, 128>().expect_layout();
  four_byte_stores<128, 64>().expect_layout();
  four_byte_stores<128, 128>().expect_layout();
}

TEST(AttentionBwdTileLayout, StmatrixWritesTheSwizzledTile) {
  for (const unsigned base : {0u, 1024u, 0x2c00u, 0x31400u}) {
    stmatrix_stores<64, 64>(base).expect_layout();
    stmatrix_stores<64, 128>(base).expect_layout();
    stmatrix_stores<128, 64>(base).expect_layout();
    stmatrix_stores<128, 128>(base).expect_layout();
  }
}

// Each register goes to the same 4 bytes both ways, and each k-step's row address is the layout's chunk.
TEST(AttentionBwdTileLayout, StmatrixPutsEachRegisterWhereItsStoreDid) {
  constexpr int KEYS = 128, ROWS = 128;
  for (int warpgroup = 0; warpgroup < KEYS / 64; ++warpgroup)
    for (int t = 0; t < 128; ++t) {
      const int warp = t / 32, lane = t % 32;
      const int key = warpgroup * 64 + warp * 16 + lane / 4;
      const unsigned row0 = attn_bwd_layout::ds_matrix_row_offset<KEYS>(warpgroup * 64 + warp * 16, lane);
      for (int kt = 0; kt < ROWS / 16; ++kt) {
        const int key_of_row = warpgroup * 64 + warp * 16 + 8 * ((lane / 8) % 2) + lane % 8;
        EXPECT_EQ(
            attn_bwd_layout::ds_matrix_row_address<KEYS>(row0, kt),
            static_cast<unsigned>(attn_bwd_layout::swizzled_offset<KEYS>(key_of_row, 2 * kt + lane / 16)));
        for (int m = 0; m < 4; ++m) {
          const unsigned row_of_register = attn_bwd_layout::ds_matrix_row_address<KEYS>(
              attn_bwd_layout::ds_matrix_row_offset<KEYS>(warpgroup * 64 + warp * 16, 8 * m + lane / 4), kt);
          EXPECT_EQ(row_of_register + 4 * (lane % 4),
                    static_cast<unsigned>(attn_bwd_layout::ds_pair_chunk_offset<KEYS>(key, kt, m) +
                                          4 * (lane % 4)));
        }
      }
    }
}

}  // namespace attention_bwd_tile_layout_test
}  // namespace evotune
