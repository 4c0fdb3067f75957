// The wgmma backward template's dQ: a unit's accumulators into global fp32 (atomics, bulk reduce-adds, or per
// key block). Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "ds_tile.cuh"
#include "schedule.cuh"
#include "tile_mma.cuh"

namespace attn_bwd {

// dQ: a unit's accumulators (row 16 warp + group + 8 (e / 2), column 8 j + 2 quad + e % 2) into global fp32,
// four consecutive columns a thread: each pair of lanes (quad, quad ^ 1) swaps half its values, so that the
// even lane holds row group and the odd lane row group + 8, columns 8 j + 4 (quad / 2) .. + 3.

// DQ_ATOMIC 1: red.global.add.v4.f32 into the [B, H, S, D] accumulator the preprocess zeroed
// (non-deterministic order). DQ_ATOMIC 0: st.global of this key block's partial, [key blocks][B, H, S, D],
// which the conversion sums in key-block order. DQ_ATOMIC 2 and 3: see write_staged, and with DQ_WRITER
// stage_for_writer.
struct DqWriter {
  float* base;  // the accumulator, or this key block's partial
  int S;
  unsigned stage;     // (DQ_ATOMIC 2, 3) this warpgroup's staging rows, shared address
  float* stage_rows;  // the same, generic address

  template <int ACC>
  __device__ __forceinline__ void write(const float (&dq_acc)[ACC], const QueryTile& tile, int m_chunk,
                                        int col0, const Lane& me) const {
    static_assert(ACC == DQ_ACC || (DQ_ALTERNATE && DQ_TILED && !DQ_WRITER),
                  "a tile's whole dQ (DQ_ALTERNATE) goes through the consumers' staged bulk reduce-add");
    if constexpr (DQ_STAGED) {
      if constexpr (DQ_WRITER)
        stage_for_writer(dq_acc, me);
      else
        write_staged(dq_acc, tile, m_chunk, col0, me);
      return;
    }
    const bool odd = me.quad & 1;
    const int row = tile.m0 + m_chunk * 64 + me.warp * 16 + me.group + (odd ? 8 : 0);
    float* const row_base = base + tile.head + static_cast<long long>(row) * D + col0 + 4 * (me.quad >> 1);
#pragma unroll
    for (int j = 0; j < DQ_N / 8; ++j) {
      const float send0 = odd ? dq_acc[4 * j] : dq_acc[4 * j + 2];
      const float send1 = odd ? dq_acc[4 * j + 1] : dq_acc[4 * j + 3];
      const float got0 = __shfl_xor_sync(0xffffffffu, send0, 1);
      const float got1 = __shfl_xor_sync(0xffffffffu, send1, 1);
      const float4 value = odd ? make_float4(got0, got1, dq_acc[4 * j + 2], dq_acc[4 * j + 3])
                               : make_float4(dq_acc[4 * j], dq_acc[4 * j + 1], got0, got1);
      if (row < S) {
        float* const address = row_base + 8 * j;
        if constexpr (DQ_ATOMIC)
          asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(address), "f"(value.x),
                       "f"(value.y), "f"(value.z), "f"(value.w)
                       : "memory");
        else
          *reinterpret_cast<float4*>(address) = value;
      }
    }
  }

  // DQ_ATOMIC 2, FlashAttention-3's: the unit's rows staged in the warpgroup's shared rows (float2 stores),
  // then thread r < 64 of the warpgroup adds row r to the accumulator with one bulk reduce-add (rows past S:
  // none). Before the staging rows are rewritten, each of those threads waits until its last bulk operation
  // has read them, and the warpgroup's barrier passes that on; the staging writes reach the bulk copies'
  // async proxy through fence.proxy.async and the barrier after them.
  // DQ_ATOMIC 3: the same with the tiled accumulator, where the staged unit is the image of its block: thread
  // 0 of the warpgroup alone waits, and adds the whole unit (rows past S too, whose dS, hence dQ, is 0: their
  // LSE_log2 is +inf and their Q and dO rows zeros, so they add zeros to padding rows the conversion never
  // reads) with one bulk reduce-add.
  // DQ_ALTERNATE: the tile's whole dQ, its ACC / DQ_ACC units, staged and added at once.
  template <int ACC>
  __device__ __forceinline__ void write_staged(const float (&dq_acc)[ACC], const QueryTile& tile, int m_chunk,
                                               int col0, const Lane& me) const {
    const Barrier own = of_warpgroup(Barrier::warpgroup, me.warpgroup);
    const int thread = threadIdx.x % 128;
    if (thread < DQ_BULK_WRITERS) sm90::tma_wait_stores_read<0>();
    sm90::barrier_sync<128>(own);
    stage_unit(dq_acc, me);
    sm90::fence_async_shared();
    sm90::barrier_sync<128>(own);
    if (thread < DQ_BULK_WRITERS) {
      if constexpr (DQ_TILED) {
        sm90::bulk_reduce_add_f32(
            base + tiled_unit_offset(tile.rows_head, tile.m0 + m_chunk * DQ_UNIT_ROWS, col0), stage,
            DQ_UNIT_BYTES * (ACC / DQ_ACC));
      } else {
        const int row = tile.m0 + m_chunk * 64 + thread;
        if (row < S)
          sm90::bulk_reduce_add_f32(base + tile.head + static_cast<long long>(row) * D + col0,
                                    stage + thread * DQ_STAGE_STRIDE * 4, DQ_N * 4);
      }
      sm90::tma_commit_stores();
    }
  }
  // DQ_WRITER 1: the unit's rows staged for the producer's writer warp (DqWriterWarp), which adds them to
  // the accumulator: wait until it has read the warpgroup's previous unit (dq_empty; it arrives once ahead
  // for the first), stage, make the writes visible to the bulk copies' async proxy, and arrive on dq_full
  // without waiting. The consumers issue no bulk operation and wait for none.
  __device__ __forceinline__ void stage_for_writer(const float (&dq_acc)[DQ_ACC], const Lane& me) const {
    sm90::barrier_sync<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, me.warpgroup));
    stage_unit(dq_acc, me);
    sm90::fence_async_shared();
    sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_full, me.warpgroup));
  }
  // The unit's accumulators into the warpgroup's staging rows: row 16 warp + group + 8 r, columns 8 j + 2
  // quad, + 1 (one 8-byte store each). With DQ_WRITER through the rows' 32-bit shared address (st.shared),
  // which leaves the consumers one 64-bit pointer fewer: with the generic one the plain loop of 128-row
  // tiles spilled 4 to 28 bytes (NVRTC, sm_90a, CUDA 13.0). DQ_ATOMIC 3: chunk j of the row at j ^ (row %
  // 8) = j ^ group; a half warp's store (4 rows of one chunk, 32 bytes each) then lands in 4 different
  // 32-byte quarters of the banks (rows 256 bytes apart would put all 4 in the same one): no conflict.
  // BLOCK_M 80 (DQ_ATOMIC 3), the transposed fragment: element 4 j + e is column 16 warp + group + 8 (e / 2)
  // of the unit (a head dimension) and row 8 j + 2 quad + e % 2 (a query row), so a thread's two values of
  // one column and rows 2 quad, + 1 lie 64 floats apart: one 4-byte store each, a warp's covering the 32
  // banks (see tiled_chunk_offset).
  // DQ_ALTERNATE (ACC = BLOCK_M / 64 x D / 2, chunk by chunk): fragment column block j goes to unit j / 8 of
  // the staged tile (its 64-row chunk j / (D / 8), slab j % (D / 8) / 8), DQ_UNIT_BYTES further each.
  template <int ACC>
  __device__ __forceinline__ void stage_unit(const float (&dq_acc)[ACC], const Lane& me) const {
    if constexpr (DQ_TRANSPOSED) {
#pragma unroll
      for (int j = 0; j < DQ_ACC / 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          stage_rows[tiled_chunk_offset(8 * j + 2 * me.quad + (e & 1), 2 * me.warp + (e >> 1)) + me.group] =
              dq_acc[4 * j + e];
      return;
    }
    const int first = (me.warp * 16 + me.group) * DQ_STAGE_STRIDE + 2 * me.quad;  // in floats
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int j = 0; j < ACC / 4; ++j) {
        const int offset = DQ_TILED
                               ? (j / 8) * (DQ_UNIT_BYTES / 4) +
                                     tiled_chunk_offset(me.warp * 16 + me.group + 8 * r, j % 8) + 2 * me.quad
                               : first + 8 * r * DQ_STAGE_STRIDE + 8 * j;
        if constexpr (DQ_WRITER)
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(stage + 4 * offset),
                       "f"(dq_acc[4 * j + 2 * r]), "f"(dq_acc[4 * j + 2 * r + 1])
                       : "memory");
        else
          *reinterpret_cast<float2*>(stage_rows + offset) =
              make_float2(dq_acc[4 * j + 2 * r], dq_acc[4 * j + 2 * r + 1]);
      }
    }
  }
  // (DQ_ATOMIC 2 and 3, the consumers' bulk reduce-adds) Every bulk reduce-add of this thread has completed
  // (before the block exits); the writer warp waits for its own.
  __device__ __forceinline__ void finish() const {
    if constexpr (DQ_STAGED && !DQ_WRITER)
      if (threadIdx.x % 128 < DQ_BULK_WRITERS) sm90::tma_wait_stores();
  }
};

// DQ_WRITER 1, FlashAttention-3's dQ writer: warp DQ_WRITER_WARP of the producer warpgroup adds every
// consumer warpgroup's staged units to the accumulator, in the order the consumers stage them (tile by tile;
// in a tile unit by unit, warpgroup by warpgroup), so that the consumers' instruction stream holds no bulk
// operation and no wait for one. Per unit: wait for dq_full of its warpgroup, lane l adds rows l and l + 32
// (rows < S) with one bulk reduce-add each (DQ_ATOMIC 3: lane 0 the whole unit with one) and commits; per
// round of units: wait until the bulk operations have read the staging rows, then arrive on dq_empty of each
// warpgroup that stages again (one arrival ahead of each warpgroup's first unit, none after its last, so that
// the consumers' waits and the arrivals pair up exactly). Before exiting, wait until every addition has
// landed.
struct DqWriterWarp {
  float* base;  // the accumulator
  int S;
  Smem smem;

  // Whether warpgroup w writes unit `unit` of each tile (DQ_IDLE: warpgroup 1 none); a warpgroup's units are
  // the first ones of the tile's rounds.
  static __device__ __forceinline__ constexpr bool writes(int warpgroup, int unit) {
    return unit < DQ_UNITS && warpgroup + unit * WARPGROUPS < DQ_TOTAL_UNITS;
  }
  __device__ __forceinline__ void run(const Schedule& schedule) const {
    if (schedule.tiles == 0) return;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int w = 0; w < WARPGROUPS; ++w)
      if (writes(w, 0)) sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, w));
    QueryTile tile = schedule.tile(0);
#pragma unroll 1
    for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
      const bool last_tile = t + 1 == schedule.tiles;
#pragma unroll
      for (int unit = 0; unit < DQ_UNITS; ++unit) {
#pragma unroll
        for (int w = 0; w < WARPGROUPS; ++w)
          if (writes(w, unit)) {
            sm90::barrier_sync<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_full, w));
            add_unit(tile, w + unit * WARPGROUPS, smem.dq_stage(w), lane);
          }
        sm90::tma_wait_stores_read<0>();
#pragma unroll
        for (int w = 0; w < WARPGROUPS; ++w)
          if (writes(w, unit) && (writes(w, unit + 1) || !last_tile))
            sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, w));
      }
    }
    sm90::tma_wait_stores();
  }
  // Unit `index` of the tile (rows of chunk index / COL_SPLIT, columns of slab index % COL_SPLIT) from the
  // staging rows at shared address `stage`: this lane's two rows (DQ_ATOMIC 3: lane 0 the whole unit), one
  // bulk group.
  __device__ __forceinline__ void add_unit(const QueryTile& tile, int index, unsigned stage, int lane) const {
    const int first_row = tile.m0 + (index / COL_SPLIT) * DQ_UNIT_ROWS;
    const int col0 = (index % COL_SPLIT) * DQ_N;
    if constexpr (DQ_TILED) {
      if (lane == 0)
        sm90::bulk_reduce_add_f32(base + tiled_unit_offset(tile.rows_head, first_row, col0), stage,
                                  DQ_UNIT_BYTES);
    } else {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = lane + 32 * half;
        if (first_row + r < S)
          sm90::bulk_reduce_add_f32(base + tile.head + static_cast<long long>(first_row + r) * D + col0,
                                    stage + r * DQ_STAGE_STRIDE * 4, DQ_N * 4);
      }
    }
    sm90::tma_commit_stores();
  }
};

}  // namespace attn_bwd
