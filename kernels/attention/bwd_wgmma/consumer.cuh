// The wgmma backward template's consumer warpgroups: a tile's loops (each tile's S^T and dP^T issued once
// acquired, or the next tile's overlapped) and a warpgroup's walk over the block's query tiles. Included by
// flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "dq.cuh"
#include "epilogue.cuh"
#include "p_ds.cuh"
#include "ring.cuh"

namespace attn_bwd {

// RingSupply: ProducedRing (WARP_SPECIALIZE) or SelfLoadedRing, with the same verbs: begin, acquire (the
// tile's stage is in shared memory and visible to wgmma), release (this warp no longer reads it), drain (no
// copy in flight before the epilogue writes the K and V tiles).

// What a consumer warpgroup holds for the tiles it walks: its wgmmas, the P / dS math, the dS^T tiles, its
// first key, and the dK and dV accumulators.
struct Consumer {
  TileMma mma;
  Gradients gradients;
  DsTile ds_tile;
  int key0;

  // P^T and dS^T of a tile, packed as the A fragments of dV and dK, from its S^T and dP^T wgmmas, committed
  // in that order as the last two groups in flight: P^T while dP^T may still run.
  __device__ __forceinline__ void fragments(float (&s_acc)[BLOCK_M / 2], float (&dp_acc)[BLOCK_M / 2],
                                            const Smem& smem, int stage, int m0,
                                            unsigned (&p_frag)[BLOCK_M / 16][4],
                                            unsigned (&ds_frag)[BLOCK_M / 16][4]) const {
    const SharedRows lse_rows{smem.at<float>(smem.lse(stage)), gradients.me.quad};
    const SharedRows dsum_rows{smem.at<float>(smem.dsum(stage)), gradients.me.quad};
    // ROW_STATS_EARLY: the LSE values read while the S^T and dP^T wgmmas run, so that the exponentials wait
    // for no load, and the Dsum values while dP^T runs (read with the LSE's, they spill at D = 128 and with
    // 128-row tiles); otherwise each where it is used.
    const auto lse = rows_now(lse_rows);
    sm90::wgmma_wait<1>();  // S^T; dP^T may still run
    sm90::pin(s_acc);
    gradients.probabilities(s_acc, lse, key0, m0);
    sm90::pin(s_acc);
    const auto dsum = rows_now(dsum_rows);
    sm90::wgmma_wait<0>();
    sm90::pin(dp_acc);
    gradients.scores_gradient(s_acc, dp_acc, dsum);
    pack(s_acc, p_frag);
    pack(dp_acc, ds_frag);
  }
};

// The dQ unit `unit` of this warpgroup: its index among the tile's units and where it lies. DQ_IDLE: the idle
// warpgroup recomputes unit 0 and does not write it (a wgmma under a branch that differs between warpgroups
// would make ptxas serialize every wgmma of the kernel).
struct DqUnit {
  int index;
  int m_chunk;
  int col0;

  static __device__ __forceinline__ DqUnit of(int unit, const Lane& me) {
    const int index = me.warpgroup + unit * WARPGROUPS;
    const int computed = DQ_IDLE ? min(index, DQ_TOTAL_UNITS - 1) : index;
    return {index, computed / COL_SPLIT, (computed % COL_SPLIT) * DQ_N};
  }
  __device__ __forceinline__ bool written() const { return !DQ_IDLE || index < DQ_TOTAL_UNITS; }
};

// The part of a tile both loops share, once its S^T and dP^T are issued: P^T and dS^T as register fragments
// (read by the wgmmas until the caller waits for them), dV += P^T dO and dK += dS^T Q issued as one group,
// and dS^T stored to its shared tile for dQ.
__device__ __forceinline__ void accumulate_dk_dv(const Consumer& consumer, const Smem& smem,
                                                 float (&s_acc)[BLOCK_M / 2], float (&dp_acc)[BLOCK_M / 2],
                                                 int stage, int m0, int ds_buffer,
                                                 unsigned (&p_frag)[BLOCK_M / 16][4],
                                                 unsigned (&ds_frag)[BLOCK_M / 16][4], float (&dk_acc)[D / 2],
                                                 float (&dv_acc)[D / 2], const Lane& me) {
  consumer.fragments(s_acc, dp_acc, smem, stage, m0, p_frag, ds_frag);
  sm90::pin(dv_acc);
  sm90::pin(dk_acc);
  sm90::wgmma_fence();
  consumer.mma.issue_dv(dv_acc, p_frag, stage);
  consumer.mma.issue_dk(dk_acc, ds_frag, stage);
  sm90::wgmma_commit();
  consumer.ds_tile.write(ds_frag, me, ds_buffer);
}

// Waits until at most PENDING wgmma groups are in flight, the tile's dV and dK ones done: their accumulators
// and the P^T and dS^T fragments they read are settled (pinned: read by the wgmmas until the wait), and the
// stage's Q and dO are no longer read, so the stage is released.
template <int PENDING, typename RingSupply>
__device__ __forceinline__ void release_after_dk_dv(const RingSupply& ring, int t,
                                                    unsigned (&p_frag)[BLOCK_M / 16][4],
                                                    unsigned (&ds_frag)[BLOCK_M / 16][4],
                                                    float (&dk_acc)[D / 2], float (&dv_acc)[D / 2]) {
  sm90::wgmma_wait<PENDING>();
  sm90::pin(dv_acc);
  sm90::pin(dk_acc);
#pragma unroll
  for (int kt = 0; kt < BLOCK_M / 16; ++kt) {
    sm90::pin(p_frag[kt]);
    sm90::pin(ds_frag[kt]);
  }
  ring.release(t);
}

// DQ_ALTERNATE, once tile t's dV and dK are issued and its dS^T is in shared memory: both warpgroups wait for
// their dV and dK wgmmas and release the stage (issuing the dQ batch before that wait, as the unit split
// does, would keep the packed P^T and dS^T registers live beside its accumulators, and ptxas then serializes
// every wgmma for want of registers: C7512); then warpgroup t % 2 computes the tile's whole dQ, waits for it,
// and stages and adds it, while the other goes on to the next tile. The branch is uniform in each warpgroup.
template <typename RingSupply>
__device__ __forceinline__ void consume_alternate_dq(const RingSupply& ring, const Consumer& consumer,
                                                     const DqWriter& dq_writer, int t, const QueryTile& tile,
                                                     int ds_buffer, unsigned (&p_frag)[BLOCK_M / 16][4],
                                                     unsigned (&ds_frag)[BLOCK_M / 16][4],
                                                     float (&dk_acc)[D / 2], float (&dv_acc)[D / 2],
                                                     const Lane& me) {
  release_after_dk_dv<0>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);
  if (t % 2 != me.warpgroup) return;
  // 64-row chunk m_chunk's accumulators at m_chunk D / 2: the order of the tile's units in the staging area.
  float dq_acc[M_CHUNKS * D / 2];
  clear(dq_acc);
  sm90::wgmma_fence();
#pragma unroll
  for (int m_chunk = 0; m_chunk < M_CHUNKS; ++m_chunk)
    consumer.mma.issue_dq(*reinterpret_cast<float(*)[D / 2]>(dq_acc + m_chunk * (D / 2)), m_chunk, 0,
                          ds_buffer);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  sm90::pin(dq_acc);
  dq_writer.write(dq_acc, tile, 0, 0, me);
}

// NEXT_TILE_OVERLAP 0: each tile's S^T and dP^T are issued once the tile is acquired; the tensor cores wait
// for P^T, and for dQ's writes to global memory at the end of the tile.
template <typename RingSupply>
__device__ __forceinline__ void consume_tiles(const RingSupply& ring, const Consumer& consumer,
                                              const Smem& smem, const Schedule& schedule,
                                              const DqWriter& dq_writer, float (&dk_acc)[D / 2],
                                              float (&dv_acc)[D / 2], const Lane& me) {
  for (int t = 0; t < schedule.tiles; ++t) {
    const QueryTile tile = schedule.tile(t);
    const int stage = t % STAGES;
    const int ds_buffer = t % DS_BUFFERS;
    ring.acquire(t);
    unsigned p_frag[BLOCK_M / 16][4], ds_frag[BLOCK_M / 16][4];
    {
      float s_acc[BLOCK_M / 2], dp_acc[BLOCK_M / 2];
      clear(s_acc);
      clear(dp_acc);
      sm90::wgmma_fence();
      consumer.mma.issue_s(s_acc, stage);
      sm90::wgmma_commit();
      consumer.mma.issue_dp(dp_acc, stage);
      sm90::wgmma_commit();
      accumulate_dk_dv(consumer, smem, s_acc, dp_acc, stage, tile.m0, ds_buffer, p_frag, ds_frag, dk_acc,
                       dv_acc, me);
    }
    if constexpr (DQ_ALTERNATE) {
      consume_alternate_dq(ring, consumer, dq_writer, t, tile, ds_buffer, p_frag, ds_frag, dk_acc, dv_acc,
                           me);
      continue;
    }
#pragma unroll
    for (int unit = 0; unit < DQ_UNITS; ++unit) {
      const DqUnit dq = DqUnit::of(unit, me);
      float dq_acc[DQ_ACC];
      clear(dq_acc);
      sm90::wgmma_fence();
      consumer.mma.issue_dq(dq_acc, dq.m_chunk, dq.col0, ds_buffer);
      sm90::wgmma_commit();
      if (unit == 0) {
        release_after_dk_dv<1>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);  // the dQ unit may still run
      }
      sm90::wgmma_wait<0>();
      sm90::pin(dq_acc);
      if (dq.written()) dq_writer.write(dq_acc, tile, dq.m_chunk, dq.col0, me);
    }
  }
}

// NEXT_TILE_OVERLAP 1 or 2 (a producer, 2 stages, one dQ unit a warpgroup): right after this tile's dQ
// wgmma, the next tile is acquired and its S^T (1), or S^T and dP^T (2), issued, so that the tensor cores
// compute them while this warpgroup releases the stage and writes dQ (atomics, stores or staging rows);
// with 1, the next tile's dP^T is issued at its start, and runs while P^T is computed, as before. The last
// tile issues its "next" scores on its own stage and K, which nothing refills then, and they are waited for
// before the epilogue overwrites K (one S^T, or S^T and dP^T, a block computes for nothing: a wgmma under a
// branch would make ptxas serialize them all). The scores' accumulators live across the tiles.
template <typename RingSupply>
__device__ __forceinline__ void consume_tiles_overlapped(const RingSupply& ring, const Consumer& consumer,
                                                         const Smem& smem, const Schedule& schedule,
                                                         const DqWriter& dq_writer, float (&dk_acc)[D / 2],
                                                         float (&dv_acc)[D / 2], const Lane& me) {
  constexpr bool BOTH = NEXT_TILE_OVERLAP == 2;
  float s_acc[BLOCK_M / 2], dp_acc[BLOCK_M / 2];
  if (schedule.tiles > 0) ring.acquire(0);
  sm90::wgmma_fence();
  consumer.mma.template issue_s<true>(s_acc, 0);
  sm90::wgmma_commit();
  if constexpr (BOTH) {
    consumer.mma.template issue_dp<true>(dp_acc, 0);
    sm90::wgmma_commit();
  }
  const DqUnit dq = DqUnit::of(0, me);
  for (int t = 0; t < schedule.tiles; ++t) {
    const QueryTile tile = schedule.tile(t);
    const int stage = t % STAGES;
    const int ds_buffer = t % DS_BUFFERS;
    if constexpr (!BOTH) {
      sm90::wgmma_fence();
      consumer.mma.template issue_dp<true>(dp_acc, stage);
      sm90::wgmma_commit();
    }
    unsigned p_frag[BLOCK_M / 16][4], ds_frag[BLOCK_M / 16][4];
    accumulate_dk_dv(consumer, smem, s_acc, dp_acc, stage, tile.m0, ds_buffer, p_frag, ds_frag, dk_acc,
                     dv_acc, me);
    float dq_acc[DQ_ACC];
    clear(dq_acc);
    sm90::wgmma_fence();
    consumer.mma.issue_dq(dq_acc, dq.m_chunk, dq.col0, ds_buffer);
    sm90::wgmma_commit();
    // The next tile's scores (the last tile's: on its own stage, unused).
    const bool more = t + 1 < schedule.tiles;
    if (more) ring.acquire(t + 1);
    const int next_stage = more ? (t + 1) % STAGES : stage;
    sm90::wgmma_fence();
    consumer.mma.template issue_s<true>(s_acc, next_stage);
    sm90::wgmma_commit();
    if constexpr (BOTH) {
      consumer.mma.template issue_dp<true>(dp_acc, next_stage);
      sm90::wgmma_commit();
    }
    // the dQ unit and the next scores may still run
    release_after_dk_dv<NEXT_TILE_OVERLAP + 1>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);
    sm90::wgmma_wait<NEXT_TILE_OVERLAP>();  // the dQ unit; the next scores may still run
    sm90::pin(dq_acc);
    if (dq.written()) dq_writer.write(dq_acc, tile, dq.m_chunk, dq.col0, me);
    // The next scores too: a wgmma in flight across the loop's back edge made ptxas serialise every wgmma
    // (C7514); dQ's writes above still ran beside them.
    sm90::wgmma_wait<0>();
    sm90::pin(s_acc);
    if constexpr (BOTH) sm90::pin(dp_acc);
  }
  sm90::wgmma_wait<0>();  // the last (unused) scores read K, which the epilogue overwrites
  sm90::pin(s_acc);
  sm90::pin(dp_acc);
}

// A consumer warpgroup: every query tile of the block, then the epilogue.
template <typename RingSupply>
__device__ __forceinline__ void consume(const RingSupply& ring, const Smem& smem, const Schedule& schedule,
                                        const DqWriter& dq_writer, elem* dK, elem* dV, float scale,
                                        const Lane& me) {
  const Consumer consumer{TileMma{smem, me.warpgroup},
                          Gradients{scale * kLog2e, schedule.SKV, schedule.causal_offset(), me}, DsTile{smem},
                          schedule.n0 + me.warpgroup * 64};
  float dk_acc[D / 2], dv_acc[D / 2];
  clear(dk_acc);
  clear(dv_acc);
  ring.begin();
  if constexpr (NEXT_TILE_OVERLAP)
    consume_tiles_overlapped(ring, consumer, smem, schedule, dq_writer, dk_acc, dv_acc, me);
  else
    consume_tiles(ring, consumer, smem, schedule, dq_writer, dk_acc, dv_acc, me);
  ring.drain();
  dq_writer.finish();
  store_dkv(dK, dV, smem, schedule, dk_acc, dv_acc, scale, me);
}

}  // namespace attn_bwd
