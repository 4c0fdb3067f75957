// The wgmma backward template's schedule: the query tiles a block of keys walks.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace attn_bwd {

// A block's keys [n0, n0 + BLOCK_N) of K/V head kv_bh; its query tiles are every query block of every query
// head of the group, head-major, from the first that sees one of its keys (causal) to the last.
struct QueryTile {
  int m0;               // first query row
  int bh;               // batch * H + head
  long long head;       // offset of the head in Q, dO, in elements
  long long rows_head;  // offset of the head's padded LSE and Dsum rows
};

// Which key block, K/V head and batch this block computes: the grid's own (x, y, z) with HEAD_INTERLEAVE 1,
// so that blocks launched one after another walk a head's key blocks from the first (under a causal mask, the
// one most query tiles see) to the last, head after head; with h > 1, groups of h (batch, K/V head) pairs
// take turns (sm90::interleaved_block), so that the heaviest blocks start first and the grid's last wave
// holds light ones.
struct BlockPlace {
  int key_block;
  int kv_head;
  int batch;

  static __device__ __forceinline__ BlockPlace of_block() {
    if constexpr (HEAD_INTERLEAVE == 1) {
      return {static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z)};
    } else {
      const sm90::InterleavedBlock place = sm90::interleaved_block<HEAD_INTERLEAVE>();
      return {place.block, place.head % static_cast<int>(gridDim.y),
              place.head / static_cast<int>(gridDim.y)};
    }
  }
};

struct Schedule {
  int n0;          // first key of the block
  int kv_bh;       // batch * HKV + K/V head
  int h0;          // the group's first query head
  int batch;       // b
  int m_first;     // the first query block any of the block's keys is seen from
  int head_tiles;  // query tiles per head: m_blocks - m_first (0: no query sees any key of the block)
  int tiles;       // group * head_tiles
  int S, SKV, H, HKV;

  static __device__ __forceinline__ Schedule of_block(int S, int SKV, int H, int HKV) {
    Schedule schedule;
    schedule.S = S;
    schedule.SKV = SKV;
    schedule.H = H;
    schedule.HKV = HKV;
    const BlockPlace place = BlockPlace::of_block();
    schedule.n0 = place.key_block * BLOCK_N;
    schedule.batch = place.batch;
    schedule.kv_bh = schedule.batch * HKV + place.kv_head;
    const int group = H / HKV;  // the space's condition: H % HKV == 0
    schedule.h0 = place.kv_head * group;
    const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
    // Query i sees key n0 (the block's first) iff i >= n0 - (SKV - S); later rows see more keys.
    const int first_row = CAUSAL ? max(0, schedule.n0 - schedule.causal_offset()) : 0;
    schedule.m_first = first_row / BLOCK_M;
    schedule.head_tiles = max(0, m_blocks - schedule.m_first);
    schedule.tiles = group * schedule.head_tiles;
    return schedule;
  }
  // Query row i sees keys j <= i + causal_offset(): bottom-right aligned, as SDPA's and FlashAttention's.
  __device__ __forceinline__ int causal_offset() const { return SKV - S; }
  __device__ __forceinline__ QueryTile tile(int t) const {
    const int h = h0 + t / head_tiles;
    QueryTile tile;
    tile.m0 = (m_first + t % head_tiles) * BLOCK_M;
    tile.bh = batch * H + h;
    tile.head = static_cast<long long>(tile.bh) * S * D;
    tile.rows_head = static_cast<long long>(tile.bh) * padded_rows(S);
    return tile;
  }
  // The tile after `tile`, without divisions (the producer has 24 registers).
  __device__ __forceinline__ void advance(QueryTile& tile) const {
    tile.m0 += BLOCK_M;
    if (tile.m0 == (m_first + head_tiles) * BLOCK_M) {  // the group's next query head
      tile.m0 = m_first * BLOCK_M;
      tile.bh += 1;
      tile.head += static_cast<long long>(S) * D;
      tile.rows_head += padded_rows(S);
    }
  }
  __device__ __forceinline__ long long kv_head() const { return static_cast<long long>(kv_bh) * SKV * D; }
};

}  // namespace attn_bwd
