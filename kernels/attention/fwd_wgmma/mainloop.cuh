// The wgmma forward template's mainloops: a work tile's K/V tiles, each batch waited for, or overlapped.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "kv_supply.cuh"
#include "pending_store.cuh"
#include "softmax.cuh"
#include "tile_mma.cuh"

namespace attn {

// INTRA_WG_OVERLAP 0: per tile S = Q K^T, waited for; the softmax with O rescaled at once; O += P V, waited
// for. A warpgroup acquires and releases the tiles past its rows (causal) without computing.
__device__ __forceinline__ void mainloop(KvSupply& kv, const TileMma& mma, const ScoreMask& mask,
                                         Softmax& softmax, float (&o_acc)[D / 2], int tiles,
                                         PendingStore& pending) {
  for (int tile = 0; tile < tiles; ++tile) {
    kv.acquire(tile);
    const int n0 = tile * BLOCK_N;
    if (!CAUSAL || n0 <= mask.wg_last_key0 + 63) {
      const unsigned long long offset = TileMma::stage_offset(kv.stage(tile));
      float s_acc[BLOCK_N / 2];
      clear(s_acc);
      sm90::wgmma_fence();
      mma.issue_qk(s_acc, offset);
      sm90::wgmma_commit();
      pending.settle();
      sm90::wgmma_wait<0>();
      sm90::pin(s_acc);
      float factor[2];
      mask.apply(s_acc, n0);
      softmax.update<true>(s_acc, factor, o_acc);
      unsigned p_frag[BLOCK_N / 16][4];
      pack_p(s_acc, p_frag);
      sm90::pin(o_acc);
      softmax.pin_sums();
      sm90::wgmma_fence();
      mma.issue_pv(o_acc, softmax.mma_sums, p_frag, offset);
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
      sm90::pin(o_acc);
      softmax.pin_sums();
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);  // read by the wgmmas until the wait
    }
    kv.release(tile);
  }
  pending.settle();  // (causal) where the warpgroup computed no tile
}

// INTRA_WG_OVERLAP 1, FlashAttention-3's intra-warpgroup overlap: S of tile j and P V of tile j - 1 are
// issued together (two commit groups), the softmax of tile j runs once S has completed (wait_group 1) while P
// V still runs, and O is rescaled once P V has completed too (wait_group 0); P of tile j - 1 stays in p_frag
// meanwhile. Each batch is issued in a turn (PINGPONG).
__device__ __forceinline__ void mainloop_overlapped(KvSupply& kv, const TileMma& mma, const ScoreMask& mask,
                                                    Softmax& softmax, const Turns& turns,
                                                    float (&o_acc)[D / 2], int tiles, PendingStore& pending) {
  const int wg_tiles =  // tiles this warpgroup computes, at least one (rows that see no key: fully masked)
      CAUSAL ? min(tiles, max(1, (mask.wg_last_key0 + 63) / BLOCK_N + 1)) : tiles;
  unsigned p_frag[BLOCK_N / 16][4];
  {
    kv.acquire_k(0);
    float s_acc[BLOCK_N / 2];
    clear(s_acc);
    turns.take();
    sm90::wgmma_fence();
    mma.issue_qk(s_acc, TileMma::stage_offset(kv.stage(0)));
    sm90::wgmma_commit();
    turns.pass();
    pending.settle();
    sm90::wgmma_wait<0>();
    sm90::pin(s_acc);
    kv.release_k(0);
    float factor[2];
    mask.apply(s_acc, 0);
    softmax.update<false>(s_acc, factor, o_acc);  // O is still 0
    pack_p(s_acc, p_frag);
  }
  for (int tile = 1; tile < wg_tiles; ++tile) {
    kv.acquire_k(tile);
    kv.acquire_v(tile - 1);
    float s_acc[BLOCK_N / 2];
    clear(s_acc);
    sm90::pin(o_acc);
    softmax.pin_sums();
    turns.take();
    sm90::wgmma_fence();
    mma.issue_qk(s_acc, TileMma::stage_offset(kv.stage(tile)));
    sm90::wgmma_commit();
    mma.issue_pv(o_acc, softmax.mma_sums, p_frag, TileMma::stage_offset(kv.stage(tile - 1)));
    sm90::wgmma_commit();
    turns.pass();
    sm90::wgmma_wait<1>();  // S of this tile
    sm90::pin(s_acc);
    kv.release_k(tile);
    float factor[2];
    mask.apply(s_acc, tile * BLOCK_N);
    softmax.update<false>(s_acc, factor, o_acc);
    sm90::pin(s_acc);       // computed before P V is waited for
    sm90::wgmma_wait<0>();  // P V of the previous tile
    sm90::pin(o_acc);
    softmax.pin_sums();
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);  // read by the wgmmas until the wait
    kv.release_v(tile - 1);
    rescale(o_acc, factor);
    softmax.rescale_sums(factor);
    pack_p(s_acc, p_frag);
  }
  kv.acquire_v(wg_tiles - 1);
  sm90::pin(o_acc);
  softmax.pin_sums();
  turns.take();
  sm90::wgmma_fence();
  mma.issue_pv(o_acc, softmax.mma_sums, p_frag, TileMma::stage_offset(kv.stage(wg_tiles - 1)));
  sm90::wgmma_commit();
  turns.pass();
  sm90::wgmma_wait<0>();
  sm90::pin(o_acc);
  softmax.pin_sums();
#pragma unroll
  for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);
  kv.release_v(wg_tiles - 1);
  for (int tile = wg_tiles; tile < tiles; ++tile) {  // (causal) the block's tiles past this warpgroup's rows
    kv.acquire_k(tile);
    kv.acquire_v(tile);
    turns.take();
    turns.pass();
    kv.release_k(tile);
    kv.release_v(tile);
  }
}

}  // namespace attn
