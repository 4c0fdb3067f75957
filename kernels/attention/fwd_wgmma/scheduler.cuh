// The wgmma forward template's scheduler: which work tile (query block of one head) a block computes next.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace attn {

// One work tile: BLOCK_M query rows of one (batch, head).
struct WorkTile {
  int m0;             // first query row
  int bh;             // batch * H + head
  int kv_bh;          // batch * HKV + its K/V head
  int tiles;          // K/V tiles it needs: all keys, or (causal) up to its last row's last key (at least 1)
  long long head;     // the offset of its (batch, head) in Q and O, in elements
  long long kv_head;  // the offset of its K/V head in K and V, in elements
};

// The work tiles of a block: the grid's one (query block, head, batch), or (PERSISTENT) every gridDim.x-th
// from blockIdx.x. LONGEST_FIRST (causal) starts the longest first: without PERSISTENT the query blocks are
// taken in reverse of blockIdx.x (the hardware starts blocks in blockIdx order, so the short ones fill the
// tail); with it every head's last query block comes first, then every head's last but one, ..., so that each
// round of gridDim.x work tiles is of nearly equal lengths (otherwise head-major: the blocks running at once
// share the K/V of a few heads in L2). HEAD_INTERLEAVE h > 1 (LONGEST_FIRST, not PERSISTENT): the grid's
// blocks are read as groups of h heads taking turns, each head's last query block first
// (sm90::interleaved_block), so that the longest blocks of a group start before any shorter one and the last
// wave holds short ones, while the blocks running at once share the K/V of h heads.
struct Scheduler {
  int first, count, step;  // work tiles first, first + step, ... below count
  int S, bh_count;
  int SKV, H, HKV;

  static __device__ __forceinline__ Scheduler of_block(int S, int SKV, int H, int HKV, int B) {
    Scheduler scheduler{0, 1, 1, S, B * H, SKV, H, HKV};
    if constexpr (PERSISTENT) {
      scheduler.first = static_cast<int>(blockIdx.x);
      scheduler.count = (S + BLOCK_M - 1) / BLOCK_M * H * B;
      scheduler.step = static_cast<int>(gridDim.x);
    }
    return scheduler;
  }
  // The keys query row `row` sees end at row + 1 + causal_offset(): bottom-right aligned, as SDPA's and
  // FlashAttention's causal mask with S != SKV.
  __device__ __forceinline__ int causal_offset() const { return SKV - S; }
  // K/V tiles up to the key_end-th key, at least one: a work tile whose rows see no key (causal, S > SKV)
  // still computes one, fully masked, so that its rows come out 0.
  static __device__ __forceinline__ int tiles_to(int key_end) {
    return max(1, (key_end + BLOCK_N - 1) / BLOCK_N);
  }

  __device__ __forceinline__ WorkTile work_tile(int item) const {
    const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
    WorkTile work;
    int m_block;
    // Query head h of batch b reads K/V head h / (H / HKV) of batch b (the space's condition: H % HKV == 0).
    if constexpr (PERSISTENT) {
      work.bh = LONGEST_FIRST ? item % bh_count : item / m_blocks;
      m_block = LONGEST_FIRST ? m_blocks - 1 - item / bh_count : item % m_blocks;
      work.kv_bh = work.bh / H * HKV + work.bh % H / (H / HKV);
    } else if constexpr (HEAD_INTERLEAVE > 1) {
      // groups of HEAD_INTERLEAVE heads take turns, each head's longest query block first
      const sm90::InterleavedBlock place = sm90::interleaved_block<HEAD_INTERLEAVE>();
      work.bh = place.head;  // the grid is (query blocks, H, B): head y + H z
      work.kv_bh = place.head / H * HKV + place.head % H / (H / HKV);
      m_block = last_block() - place.block;
    } else {
      work.bh = blockIdx.z * gridDim.y + blockIdx.y;  // the grid is (query blocks, H, B)
      work.kv_bh = static_cast<int>(blockIdx.z) * HKV + static_cast<int>(blockIdx.y) / (H / HKV);
      m_block = LONGEST_FIRST ? last_block() - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
    }
    work.m0 = m_block * BLOCK_M;
    const int key_end = CAUSAL ? min(SKV, work.m0 + BLOCK_M + causal_offset()) : SKV;
    work.tiles = CAUSAL ? tiles_to(key_end) : (key_end + BLOCK_N - 1) / BLOCK_N;
    if constexpr (CLUSTER > 1) {
      // The two blocks of a cluster (adjacent query blocks of one head) go through the same K/V tiles, in
      // step: as many as the later one needs (the other acquires and releases those past its rows, as a
      // warpgroup does for the tiles causal masking lets it skip).
      const int peer_x = static_cast<int>(blockIdx.x ^ 1);
      const int peer_block = LONGEST_FIRST ? last_block() - peer_x : peer_x;
      const int peer_key_end = CAUSAL ? min(SKV, (peer_block + 1) * BLOCK_M + causal_offset()) : SKV;
      work.tiles = max(work.tiles, (peer_key_end + BLOCK_N - 1) / BLOCK_N);
    }
    work.head = static_cast<long long>(work.bh) * S * D;
    work.kv_head = static_cast<long long>(work.kv_bh) * SKV * D;
    return work;
  }

  // gridDim.x is the query blocks, or with CLUSTER 2 their number rounded up to even (the extra block's rows
  // are all past S: it computes on zeros and stores nothing).
  static __device__ __forceinline__ int last_block() { return static_cast<int>(gridDim.x) - 1; }
};

}  // namespace attn
