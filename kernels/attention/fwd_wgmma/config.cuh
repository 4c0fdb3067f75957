// The wgmma forward template's types and constants: the element type, the block's shape, shared-memory
// size and register split derived from the tuning parameters, and the checks that every combination is one
// the template implements.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

namespace attn {

using element_type::elem;  // the element type of Q, K, V, O
using element_type::mma_type;
using element_type::pack_pair;

constexpr int CONSUMER_THREADS = 128 * CONSUMER_WARPGROUPS;
constexpr int THREADS = CONSUMER_THREADS + 128 * WARP_SPECIALIZE;  // the producer warpgroup comes last
constexpr int BLOCK_M = 64 * CONSUMER_WARPGROUPS;
constexpr int Q_BYTES = 2 * BLOCK_M * D;
constexpr int KV_TILE_BYTES = 2 * BLOCK_N * D;
constexpr int CHUNKS = D / 8;  // 16-byte chunks per row
// The space's SMEM_BYTES: the tiles, the producer's mbarriers (at most 96 bytes, 128 counted; with KV_SPLIT
// at most 144, 256 counted) and room to align the tiles to 1024 bytes.
// (ROW_SUM_MMA) and each consumer warpgroup's 256-byte tile of ones.
constexpr int SMEM_BYTES = Q_BUFFERS * Q_BYTES + 2 * STAGES * KV_TILE_BYTES +
                           (WARP_SPECIALIZE ? 128 * (1 + KV_SPLIT) : 0) + 1024 +
                           256 * CONSUMER_WARPGROUPS * ROW_SUM_MMA;
// The consumers loading the ring themselves: tiles in flight while one is computed (with the overlap two
// stages are being read: K of tile j, V of tile j - 1).
constexpr int PREFETCH = STAGES - 1 - INTRA_WG_OVERLAP;
// setmaxnreg (warp specialisation with 2 or 3 consumer warpgroups; with 1 the block's 256 threads may have
// 255 registers each anyway): producer + consumers fit 64K registers, (PRODUCER_REGS + W CONSUMER_REGS) 128
// <= 65536. REG_SPLIT k moves 8 k registers a thread from each consumer warpgroup to the producer.
constexpr int PRODUCER_REGS = (CONSUMER_WARPGROUPS == 3 ? 32 : 24) + 8 * REG_SPLIT * CONSUMER_WARPGROUPS;
constexpr int CONSUMER_REGS = (CONSUMER_WARPGROUPS == 3 ? 160 : 240) - 8 * REG_SPLIT;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
// (LAZY_RESCALE) how far, base 2, a row's max may lag its scores before it moves: P <= 2^8.
constexpr float kLazyRescaleLog2 = 8.0f;

static_assert(D == 64 || D == 128, "D must be 64 or 128 (one or two 64-column slabs)");
static_assert(CONSUMER_WARPGROUPS >= 1 && CONSUMER_WARPGROUPS <= 3, "1..3 consumer warpgroups");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256,
              "BLOCK_N is the n of a wgmma (<= 256) and a whole number of P V k-steps of 16 keys");
static_assert(STAGES >= 1 && STAGES <= 4, "STAGES must be 1..4");
static_assert(INTRA_WG_OVERLAP == 0 || INTRA_WG_OVERLAP == 1, "INTRA_WG_OVERLAP is 0 or 1");
static_assert(WARP_SPECIALIZE == 0 || WARP_SPECIALIZE == 1, "WARP_SPECIALIZE is 0 or 1");
static_assert(TMA_LOADS == 0 || WARP_SPECIALIZE,
              "TMA_LOADS: the producer warpgroup issues the tensor copies");
static_assert(TMA_STORE == 0 || TMA_LOADS, "TMA_STORE: the space pairs the O map with the Q, K, V maps");
static_assert(PERSISTENT == 0 || TMA_LOADS,
              "PERSISTENT: the producer reloads Q per work tile with TMA, ordered on the q_empty mbarrier");
static_assert(
    Q_BUFFERS == 1 || (Q_BUFFERS == 2 && PERSISTENT),
    "Q_BUFFERS 2: a persistent block's next work tile's Q lands in the other Q tile while this one runs");
static_assert(REG_SPLIT >= 0 && REG_SPLIT <= 2, "REG_SPLIT is 0..2");
static_assert(ROW_SUM_MMA == 0 || ROW_SUM_MMA == 1, "ROW_SUM_MMA is 0 or 1");
static_assert(LONGEST_FIRST == 0 || CAUSAL, "LONGEST_FIRST orders work tiles of unequal length: causal only");
static_assert(HEAD_INTERLEAVE == 1 || (LONGEST_FIRST && !PERSISTENT && CLUSTER == 1),
              "HEAD_INTERLEAVE: groups of heads whose query blocks take turns, longest first, one a block");
static_assert(CLUSTER == 1 || (CLUSTER == 2 && TMA_LOADS && !PERSISTENT),
              "CLUSTER 2: two blocks share K/V through TMA multicast, one work tile each");
static_assert(REG_SPLIT == 0 || (WARP_SPECIALIZE && CONSUMER_WARPGROUPS > 1),
              "REG_SPLIT moves registers between the producer and the consumers only where setmaxnreg runs");
static_assert(KV_SPLIT == 0 || (KV_SPLIT == 1 && TMA_LOADS && INTRA_WG_OVERLAP && CLUSTER == 1),
              "KV_SPLIT: the TMA producer loads K a tile ahead of V for the overlapped mainloop, one block a "
              "K/V tile");
static_assert(
    PINGPONG == 0 || (INTRA_WG_OVERLAP && WARP_SPECIALIZE && CONSUMER_WARPGROUPS >= 2),
    "PINGPONG orders the wgmmas of 2 or 3 consumer warpgroups fed by a producer, on the overlapped path");
// Overlapped, a warpgroup waits for tile j while it still reads tile j - 1's V: with a producer, tile j needs
// the stage of tile j - STAGES released, so STAGES >= 2; loading themselves, the consumers refill the stage
// of tile j - 2 while tile j + 1 is in flight, so STAGES = 3.
static_assert(!INTRA_WG_OVERLAP || STAGES >= (WARP_SPECIALIZE ? 2 : 3),
              "INTRA_WG_OVERLAP needs STAGES >= 2 with WARP_SPECIALIZE, STAGES = 3 without");
static_assert(!WARP_SPECIALIZE || CONSUMER_WARPGROUPS == 1 ||
                  (PRODUCER_REGS + CONSUMER_WARPGROUPS * CONSUMER_REGS) * 128 <= 65536,
              "the producer's and the consumers' setmaxnreg counts must fit the 64K registers of an SM");

template <bool Condition, typename IfTrue, typename IfFalse>
struct Select {
  using type = IfTrue;
};
template <typename IfTrue, typename IfFalse>
struct Select<false, IfTrue, IfFalse> {
  using type = IfFalse;
};

__device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace attn
