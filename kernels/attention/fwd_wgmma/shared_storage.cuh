// The wgmma forward template's shared memory (SharedStorage, addressed through Smem) and named barriers.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace attn {

// The block's shared memory, 1024-byte aligned. A tile of R rows is D / 64 slabs of [R][64] elements, each
// 128-byte row swizzled (chunk c of row r at c ^ (r % 8)); every tile is a multiple of 1024 bytes.
struct SharedStorage {
  elem q[Q_BUFFERS][BLOCK_M * D];  // Q (work tile i's in q[i % Q_BUFFERS]); in the epilogue, the staged O
  elem k[STAGES][BLOCK_N * D];     // the K/V ring
  elem v[STAGES][BLOCK_N * D];
  // WARP_SPECIALIZE only (the space's SMEM_BYTES counts them then; otherwise they lie past it, unused):
  unsigned long long full[STAGES];        // the stage's tile has landed (KV_SPLIT: its K)
  unsigned long long empty[STAGES];       // every consumer warp (of both blocks of a cluster) is done with it
  unsigned long long q_empty[Q_BUFFERS];  // (PERSISTENT) every consumer warpgroup stored O from the Q tile
  unsigned long long full_v[KV_SPLIT ? STAGES : 1];   // (KV_SPLIT) the stage's V has landed
  unsigned long long empty_v[KV_SPLIT ? STAGES : 1];  // (KV_SPLIT) every consumer warp is done with its V
};
// Byte offsets of its members: in order, without padding (NVRTC has no offsetof).
constexpr unsigned OFFSET_Q = 0;
constexpr unsigned OFFSET_K = OFFSET_Q + sizeof(SharedStorage::q);
constexpr unsigned OFFSET_V = OFFSET_K + sizeof(SharedStorage::k);
constexpr unsigned OFFSET_FULL = OFFSET_V + sizeof(SharedStorage::v);
constexpr unsigned OFFSET_EMPTY = OFFSET_FULL + sizeof(SharedStorage::full);
constexpr unsigned OFFSET_Q_EMPTY = OFFSET_EMPTY + sizeof(SharedStorage::empty);
constexpr unsigned OFFSET_FULL_V = OFFSET_Q_EMPTY + sizeof(SharedStorage::q_empty);
constexpr unsigned OFFSET_EMPTY_V = OFFSET_FULL_V + sizeof(SharedStorage::full_v);
static_assert(OFFSET_EMPTY_V + sizeof(SharedStorage::empty_v) == sizeof(SharedStorage),
              "SharedStorage has no padding: the offsets above are its members'");
static_assert(sizeof(SharedStorage::k[0]) == KV_TILE_BYTES, "a stage is one K (or V) tile");
// (ROW_SUM_MMA) the consumer warpgroups' tiles of ones, 256 bytes each, past the barriers (or, without a
// producer, where they would be), 16-byte aligned for a wgmma descriptor.
constexpr unsigned OFFSET_ONES = ((WARP_SPECIALIZE ? sizeof(SharedStorage) : OFFSET_FULL) + 15) & ~15u;
static_assert(!ROW_SUM_MMA || OFFSET_ONES + 256 * CONSUMER_WARPGROUPS + 1024 <= SMEM_BYTES,
              "SMEM_BYTES holds the tiles of ones");
static_assert((WARP_SPECIALIZE ? sizeof(SharedStorage) : OFFSET_FULL) + 1024 <= SMEM_BYTES,
              "SMEM_BYTES (the space's expression) holds the layout and its alignment");

// Shared addresses of the block's SharedStorage (what cp.async, TMA, mbarriers and descriptors take), and the
// generic address of its Q tile (the epilogue's staging stores).
struct Smem {
  unsigned base;  // 1024-aligned
  unsigned char* staging;

  static __device__ __forceinline__ Smem of(unsigned char* raw) {
    const sm90::AlignedSmem aligned = sm90::align_smem_1024(raw);
    return {aligned.shared, aligned.generic};
  }
  __device__ __forceinline__ unsigned q(int buffer = 0) const { return base + OFFSET_Q + buffer * Q_BYTES; }
  __device__ __forceinline__ unsigned k(int stage = 0) const {
    return base + OFFSET_K + stage * KV_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned v(int stage = 0) const {
    return base + OFFSET_V + stage * KV_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned full() const { return base + OFFSET_FULL; }
  __device__ __forceinline__ unsigned empty() const { return base + OFFSET_EMPTY; }
  __device__ __forceinline__ unsigned q_empty(int buffer = 0) const {
    return base + OFFSET_Q_EMPTY + 8 * buffer;
  }
  __device__ __forceinline__ unsigned full_v() const { return base + OFFSET_FULL_V; }
  __device__ __forceinline__ unsigned empty_v() const { return base + OFFSET_EMPTY_V; }
  // (ROW_SUM_MMA) consumer warpgroup w's tile of ones: its shared address, and its generic address.
  __device__ __forceinline__ unsigned ones(int warpgroup) const {
    return base + OFFSET_ONES + warpgroup * 256;
  }
  __device__ __forceinline__ elem* ones_tile(int warpgroup) const {
    return reinterpret_cast<elem*>(staging + OFFSET_ONES + warpgroup * 256);
  }
  // The generic address of Q tile `buffer`, where the epilogue stages O.
  __device__ __forceinline__ unsigned char* staging_rows(int buffer) const {
    return staging + buffer * Q_BYTES;
  }
};
using sm90::swizzled_offset;  // the tiles' 128-byte swizzle (kernels/common/sm90/swizzle.cuh)

// Named barriers (0 is __syncthreads); the first of a kind plus w is consumer warpgroup w's.
enum class Barrier : int {
  turn = 2,       // (PINGPONG) warpgroup w's turn to issue its wgmmas: 256 threads, its own and the passer's
  warpgroup = 5,  // warpgroup w alone (its epilogue): 128 threads
};
__device__ __forceinline__ Barrier of_warpgroup(Barrier first, int warpgroup) {
  return static_cast<Barrier>(static_cast<int>(first) + warpgroup);
}

}  // namespace attn
