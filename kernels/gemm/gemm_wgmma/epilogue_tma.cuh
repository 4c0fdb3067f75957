// The wgmma GEMM template's TMA epilogue (EPILOGUE 1): a consumer warpgroup's part of the tile staged in
// swizzled boxes and stored with TMA while the next tile's k loop runs.
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "epilogue_values.cuh"

namespace gemm {

// The shared address of byte `byte` of row `row` of a staging box (rows 128 bytes apart, a narrower box's
// too, swizzled as the D map reads them).
__device__ __forceinline__ unsigned staged(unsigned box, int row, int byte) {
  return box + row * 128 + ((((byte / 16) ^ (row % 8)) * 16) | (byte % 16));
}
__device__ __forceinline__ void stage_pair(unsigned address, float v0, float v1) {
  if constexpr (sizeof(out_t) == 4) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(v0), "f"(v1) : "memory");
  } else {
#if defined(BF16) && BF16
    const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
#else
    const __half2 pair = __floats2half2_rn(v0, v1);
#endif
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(*reinterpret_cast<const unsigned*>(&pair))
                 : "memory");
  }
}
__device__ __forceinline__ void stage_one(unsigned address, float value) {
  if constexpr (sizeof(out_t) == 4) {
    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(address), "f"(value) : "memory");
  } else {
#if defined(BF16) && BF16
    const unsigned short bits = __bfloat16_as_ushort(__float2bfloat16_rn(value));
#else
    const unsigned short bits = __half_as_ushort(__float2half_rn(value));
#endif
    asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(address), "h"(bits) : "memory");
  }
}

// Box (mi, chunk) of a consumer warpgroup's rows, unswapped: rows of m64 atom mi, columns [chunk *
// STAGING_COLS, + STAGING_COLS) of the tile, two adjacent columns a store.
__device__ __forceinline__ void fill_rows_box(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned box,
                                              const elem* __restrict__ bias, int mi, int chunk, int n0,
                                              int N) {
  const int first_row = sm90::accumulator_row(), first_col = sm90::accumulator_column();
#pragma unroll
  for (int j = 0; j < STAGING_COLS / 8; ++j)
#pragma unroll
    for (int half_rows = 0; half_rows < 2; ++half_rows) {
      const int row = first_row + 8 * half_rows;                 // in the 64-row box
      const int col = chunk * STAGING_COLS + 8 * j + first_col;  // in the tile
      const float* values = &acc[mi][4 * (chunk * STAGING_COLS / 8 + j) + 2 * half_rows];
      const float v0 = finish(values[0], bias, min(n0 + col, N - 1));
      const float v1 = finish(values[1], bias, min(n0 + col + 1, N - 1));
      stage_pair(staged(box, row, (8 * j + first_col) * static_cast<int>(sizeof(out_t))), v0, v1);
    }
}

// Box (mi, chunk, rows) swapped: D's columns [chunk * STAGING_COLS, + STAGING_COLS) of m64 atom mi (the
// product's rows), D's rows [rows * STORE_ROWS, + STORE_ROWS) of the tile (the product's columns), each value
// written to its transposed place (the warp's stores of one instruction: 8 adjacent columns of 4 rows, whose
// swizzled chunks fall in different banks).
__device__ __forceinline__ void fill_columns_box(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned box,
                                                 const elem* __restrict__ bias, int mi, int chunk, int rows,
                                                 int n0, int N) {
  const int first_col = sm90::accumulator_row(), first_row = sm90::accumulator_column();  // swapped
#pragma unroll
  for (int half_cols = 0; half_cols < 2; ++half_cols) {
    const int col = first_col + 8 * half_cols;  // in the atom's 64 columns of D
    if (col / STAGING_COLS != chunk) continue;  // fp32 D: two boxes of 32 columns an atom
    const int byte = (col % STAGING_COLS) * static_cast<int>(sizeof(out_t));
    const int bias_col = min(n0 + mi * 64 + col, N - 1);
#pragma unroll
    for (int j = 0; j < STORE_ROWS / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int row = 8 * j + first_row + e;  // in the box
        const float value = acc[mi][4 * (rows * STORE_ROWS / 8 + j) + 2 * half_cols + e];
        stage_one(staged(box, row, byte), finish(value, bias, bias_col));
      }
  }
}

// EPILOGUE 1: a consumer warpgroup's part of the tile (corner m0, n0 of D), one staging box at a time (64
// rows x STAGING_COLS columns of an atom; swapped, STAGING_COLS columns of an atom by STORE_ROWS rows),
// stored by the warpgroup's first thread with TMA; the two boxes alternate, a box reused once its store has
// read it.
__device__ __forceinline__ void store_tile_tma(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned staging,
                                               const sm90::TensorMap& d_map, const elem* __restrict__ bias,
                                               int consumer, int m0, int n0, int N) {
  constexpr int CHUNKS = (SWAP_AB ? 64 : MMA_N) / STAGING_COLS;  // column boxes of an atom
  constexpr int ROW_BOXES = SWAP_AB ? BLOCK_M / STORE_ROWS : 1;  // row boxes of an atom
  const bool issuer = threadIdx.x % 128 == 0;
  const Barrier barrier = static_cast<Barrier>(static_cast<int>(Barrier::epilogue_first) + consumer);
  int box = 0;
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int chunk = 0; chunk < CHUNKS; ++chunk)
#pragma unroll
      for (int rows = 0; rows < ROW_BOXES; ++rows, ++box) {
        const unsigned buffer = staging + (box % 2) * STAGING_BYTES;
        if (issuer) sm90::tma_wait_stores_read<1>();  // the store that last read this box is done with it
        sm90::barrier_sync(barrier, 128);
        if constexpr (SWAP_AB) {
          fill_columns_box(acc, buffer, bias, mi, chunk, rows, n0, N);
        } else {
          fill_rows_box(acc, buffer, bias, mi, chunk, n0, N);
        }
        sm90::fence_async_shared();  // the writes above, visible to the TMA store
        sm90::barrier_sync(barrier, 128);
        if (issuer) {
          if constexpr (SWAP_AB) {
            sm90::tma_store_2d(d_map, buffer, n0 + mi * 64 + chunk * STAGING_COLS, m0 + rows * STORE_ROWS);
          } else {
            sm90::tma_store_2d(d_map, buffer, n0 + chunk * STAGING_COLS, m0 + mi * 64);
          }
          sm90::tma_commit_stores();
        }
      }
}

}  // namespace gemm
