// The wgmma backward template's shared memory (SharedStorage, addressed through Smem) and named barriers.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace attn_bwd {

// The block's shared memory, 1024-byte aligned. A tile of R rows is its columns / 64 slabs of [R][64]
// elements, each 128-byte row swizzled (chunk c of row r at c ^ (r % 8)); every tile is a multiple of 1024
// bytes. K and V are [BLOCK_N keys][D], Q and dO [BLOCK_M rows][D], dS^T [BLOCK_N keys][BLOCK_M rows]
// (BLOCK_M 80: 5 slabs of [BLOCK_N][16] with the 32-byte swizzle, swizzled32_offset).
struct SharedStorage {
  elem k[BLOCK_N * D];  // K; in the epilogue, the staged dK
  elem v[BLOCK_N * D];  // V; in the epilogue, the staged dV
  elem q[STAGES][BLOCK_M * D];
  elem dout[STAGES][BLOCK_M * D];
  elem ds[DS_BUFFERS][BLOCK_N * BLOCK_M];
  float lse[STAGES][BLOCK_M];   // LSE * log2(e) of the tile's rows (+inf past S)
  float dsum[STAGES][BLOCK_M];  // Dsum of the tile's rows (0 past S)
  // WARP_SPECIALIZE only (the space's SMEM_BYTES counts them then; otherwise they lie past it, unused):
  unsigned long long full[STAGES];   // the stage's tiles have landed
  unsigned long long empty[STAGES];  // every consumer warp is done with it
};
// Byte offsets of its members: in order, without padding (NVRTC has no offsetof).
constexpr unsigned OFFSET_K = 0;
constexpr unsigned OFFSET_V = OFFSET_K + sizeof(SharedStorage::k);
constexpr unsigned OFFSET_Q = OFFSET_V + sizeof(SharedStorage::v);
constexpr unsigned OFFSET_DO = OFFSET_Q + sizeof(SharedStorage::q);
constexpr unsigned OFFSET_DS = OFFSET_DO + sizeof(SharedStorage::dout);
constexpr unsigned OFFSET_LSE = OFFSET_DS + sizeof(SharedStorage::ds);
constexpr unsigned OFFSET_DSUM = OFFSET_LSE + sizeof(SharedStorage::lse);
constexpr unsigned OFFSET_FULL = OFFSET_DSUM + sizeof(SharedStorage::dsum);
constexpr unsigned OFFSET_EMPTY = OFFSET_FULL + sizeof(SharedStorage::full);
static_assert(OFFSET_EMPTY + sizeof(SharedStorage::empty) == sizeof(SharedStorage),
              "SharedStorage has no padding: the offsets above are its members'");
// (DQ_ATOMIC 2, 3) The dQ staging area follows, past the 64 bytes counted for the mbarriers (16-byte
// aligned, as the bulk copies need).
constexpr unsigned OFFSET_DQ_STAGE = OFFSET_FULL + 64;
static_assert(sizeof(SharedStorage) <= OFFSET_DQ_STAGE, "the mbarriers fit the 64 bytes counted for them");
static_assert(sizeof(SharedStorage::q[0]) == Q_TILE_BYTES && sizeof(SharedStorage::k) == KV_TILE_BYTES,
              "a stage is one Q and one dO tile");
static_assert(OFFSET_DQ_STAGE % 16 == 0, "the bulk reduce-adds read 16-byte aligned shared memory");
static_assert((DQ_STAGED         ? OFFSET_DQ_STAGE + DQ_STAGE_BYTES
               : WARP_SPECIALIZE ? sizeof(SharedStorage)
                                 : OFFSET_FULL) +
                      1024 <=
                  SMEM_BYTES,
              "SMEM_BYTES (the space's expression) holds the layout and its alignment");

// Shared addresses of the block's SharedStorage (what cp.async, TMA, mbarriers, descriptors and stmatrix
// take), and its generic address (the dS^T's 4-byte stores, the LSE and Dsum reads, the epilogue's staging).
struct Smem {
  unsigned base;  // 1024-aligned
  unsigned char* generic;

  static __device__ __forceinline__ Smem of(unsigned char* raw) {
    const sm90::AlignedSmem aligned = sm90::align_smem_1024(raw);
    return {aligned.shared, aligned.generic};
  }
  __device__ __forceinline__ unsigned k() const { return base + OFFSET_K; }
  __device__ __forceinline__ unsigned v() const { return base + OFFSET_V; }
  __device__ __forceinline__ unsigned q(int stage) const { return base + OFFSET_Q + stage * Q_TILE_BYTES; }
  __device__ __forceinline__ unsigned dout(int stage) const {
    return base + OFFSET_DO + stage * Q_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned ds(int buffer = 0) const {
    return base + OFFSET_DS + buffer * DS_BYTES;
  }
  __device__ __forceinline__ unsigned lse(int stage) const { return base + OFFSET_LSE + stage * ROW_BYTES; }
  __device__ __forceinline__ unsigned dsum(int stage) const { return base + OFFSET_DSUM + stage * ROW_BYTES; }
  __device__ __forceinline__ unsigned full() const { return base + OFFSET_FULL; }
  __device__ __forceinline__ unsigned empty() const { return base + OFFSET_EMPTY; }
  __device__ __forceinline__ unsigned dq_stage(int warpgroup) const {
    return base + OFFSET_DQ_STAGE + warpgroup * DQ_WARPGROUP_STAGE_BYTES;
  }
  template <typename T>
  __device__ __forceinline__ T* at(unsigned address) const {
    return reinterpret_cast<T*>(generic + (address - base));
  }
};

// Named barriers (0 is __syncthreads), each over the consumer warpgroups' threads.
enum class Barrier : int {
  ds_free = 1,  // every consumer warpgroup's dQ wgmmas of the previous tile (which read dS^T) have completed
                // (one dS^T tile only: with two, ds_ready of the previous tile implies it for the one before)
  ds_ready = 2,   // every consumer thread's dS^T of this tile is in shared memory
  epilogue = 3,   // every consumer warpgroup's wgmmas have completed: K and V may be overwritten
  warpgroup = 4,  // warpgroup w's own, 4 + w: its staged rows are written
  // (DQ_WRITER) warpgroup w's and the writer warp's, 6 + w and 8 + w:
  dq_full = 6,   // the warpgroup's dQ unit is staged (the consumers arrive, the writer waits)
  dq_empty = 8,  // the writer's bulk reduce-adds have read the staged unit (the writer arrives, the consumers
                 // wait before staging the next)
};
// Barrier `first` of warpgroup w (first + w).
__device__ __forceinline__ Barrier of_warpgroup(Barrier first, int warpgroup) {
  return static_cast<Barrier>(static_cast<int>(first) + warpgroup);
}
static_assert(static_cast<int>(Barrier::warpgroup) + WARPGROUPS <= static_cast<int>(Barrier::dq_full) &&
                  static_cast<int>(Barrier::dq_full) + WARPGROUPS <= static_cast<int>(Barrier::dq_empty) &&
                  static_cast<int>(Barrier::dq_empty) + WARPGROUPS <= 16,
              "each warpgroup's barriers have ids of their own, at most 15");

using Lane = sm90::Lane;  // this thread's warpgroup and its place in the accumulator fragments

}  // namespace attn_bwd
