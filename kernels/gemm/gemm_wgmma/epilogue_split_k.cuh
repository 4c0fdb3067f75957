// The wgmma GEMM template's split-K and stream-K epilogues: slices reduced in the kernel by the last to
// arrive (EPILOGUE 2), or summed in L2 with reductions (EPILOGUE 3, stream-K's shared tiles).
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "epilogue_values.cuh"
#include "scheduler.cuh"

namespace gemm {

__device__ __forceinline__ void opaque(const float*& pointer) { asm volatile("" : "+l"(pointer)); }

// Calls f(at, mi, i) for each of this thread's values acc[mi][i] of a consumer warpgroup's part of the tile
// (corner m0, n0 of D) inside D, `at` its place in an fp32 [M][N] matrix, for the loads of a reduction; f
// returns the value it made of them. INSIDE (part_inside): no call is conditional and each address is the
// last one plus a step, so the loads of GROUP calls are in flight together; after every GROUP calls the
// addresses go on from the last call's value, so that the next group's loads wait for this one's (a bound on
// the loads live at once; not measured to matter: 60 sampled EPILOGUE 2 configs compile without spills, at
// most 196 registers, with the groups and without them). At the edges of D a branch
// skips each value past M or N, and the compiler then waits for each load before the next: one L2 round
// trip a value (ncu, 128 x 4096 x 4096, 128 x 128 tiles, split-K 2, EPILOGUE 2 with such a walk everywhere:
// 41.4 us against EPILOGUE 0's 19.6).
template <bool INSIDE, int GROUP, typename F>
__device__ __forceinline__ void walk_values(const float* sums, int m0, int n0, int M, int N, F&& f) {
  int calls = 0;
  const auto after = [&](const float*& at, float value) {
    if (++calls % GROUP == 0) asm volatile("" : "+l"(at), "+l"(sums) : "f"(value));
  };
  const int across = sm90::accumulator_row();    // the thread's row of an m64 atom of the product
  const int first = sm90::accumulator_column();  // its first column of each 8 of the product
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if constexpr (!SWAP_AB) {  // (row, columns col, col + 1 of each 8)
        const int row = m0 + mi * 64 + across + 8 * half;
        if (!INSIDE && row >= M) continue;
        const float* at = sums + static_cast<long long>(row) * N + n0 + first;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8) {
          opaque(at);
          const int col = n0 + 8 * j + first;
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (INSIDE || col + e < N) after(at, f(at + e, mi, 4 * j + 2 * half + e));
        }
      } else {  // (column col, rows row, row + 1 of each 8)
        const int col = n0 + mi * 64 + across + 8 * half;
        if (!INSIDE && col >= N) continue;
        const float* at = sums + static_cast<long long>(m0 + first) * N + col;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8LL * N) {
          opaque(at);
          const int row = m0 + 8 * j + first;
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (INSIDE || row + e < M)
              after(at, f(at + e * static_cast<long long>(N), mi, 4 * j + 2 * half + e));
        }
      }
    }
}

// walk_values<INSIDE, GROUP> with INSIDE = part_inside(...), for f that load one value each: 32 in flight.
template <typename F>
__device__ __forceinline__ void walk_values(const float* sums, int m0, int n0, int M, int N, F&& f) {
  constexpr int GROUP = 32;
  if (part_inside(m0, n0, M, N)) {
    walk_values<true, GROUP>(sums, m0, n0, M, N, f);
  } else {
    walk_values<false, GROUP>(sums, m0, n0, M, N, f);
  }
}

// True in the warp whose arrival completes its counter of the tile (`arrivals`, zero before the launch): each
// warp adds `contributed` and the one that brings it to `total` is last (split-K: 1 of SPLIT_K slices;
// stream-K: its k steps of the tile's k_tiles). Each warp's writes before its call are visible to the last
// warp after the call.
__device__ __forceinline__ bool last_to_arrive(int* __restrict__ arrivals, const sm90::TileCoord& tile,
                                               int tiles_n, int consumer, int contributed, int total) {
  __threadfence();  // this warp's writes visible on the device before its arrival is
  __syncwarp();
  const int warp = (threadIdx.x % 128) / 32;
  int arrived = 0;
  if (threadIdx.x % 32 == 0)
    arrived = atomicAdd(arrivals + ((tile.m * tiles_n + tile.n) * CONSUMER_WARPGROUPS + consumer) * 4 + warp,
                        contributed);
  arrived = __shfl_sync(0xffffffffu, arrived, 0);
  if (arrived + contributed != total) return false;
  __threadfence();  // the other warps' writes, made before their arrivals, are read after them
  return true;
}

// EPILOGUE 2: this warpgroup's part of slice tile.split stored as fp32 partial sums; in each warp that
// arrives last at its tile (its counter in `arrivals`, zero before the launch), the SPLIT_K slices added in
// slice order and D stored with the bias and activation. `acc` becomes the sum.
__device__ __forceinline__ void reduce_in_kernel(float (&acc)[M_ATOMS][MMA_N / 2],
                                                 float* __restrict__ partial, int* __restrict__ arrivals,
                                                 out_t* __restrict__ d, const elem* __restrict__ bias,
                                                 const sm90::TileCoord& tile, int tiles_m, int tiles_n,
                                                 int consumer, int m0, int n0, int M, int N) {
  const long long slice = static_cast<long long>(M) * N;
  store_tile<float, false>(acc, partial + tile.split * slice, nullptr, m0, n0, M, N);
  if (tile.m >= tiles_m || tile.n >= tiles_n) return;  // a cluster's block past the edge of D: no counter
  if (!last_to_arrive(arrivals, tile, tiles_n, consumer, 1, SPLIT_K)) return;
  if constexpr (SPLIT_K == 2) {  // its own sums and the other slice's: the same bits in either order
    walk_values(partial + (1 - tile.split) * slice, m0, n0, M, N,
                [&](const float* at, int mi, int i) { return acc[mi][i] += __ldcg(at); });
  } else {  // every slice's sums from L2 in slice order, its own too: one walk a slice
#pragma unroll 1
    for (int split = 0; split < SPLIT_K; ++split)
      walk_values(partial + split * slice, m0, n0, M, N, [&](const float* at, int mi, int i) {
        return acc[mi][i] = (split == 0 ? 0.0f : acc[mi][i]) + __ldcg(at);
      });
  }
  store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
}

// Adds to the fp32 sums in global memory with a reduction in L2 that returns nothing (no thread waits): one
// value, or two adjacent ones (8-byte aligned).
__device__ __forceinline__ void reduce_add(float* at, float value) {
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(at), "f"(value) : "memory");
}
__device__ __forceinline__ void reduce_add_pair(float* at, float v0, float v1) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(v0), "f"(v1) : "memory");
}

// Hides a pointer's value from the compiler, so that the addresses of a walk are computed one after another
// as it goes rather than all ahead of their loads and reductions (ptxas otherwise keeps a 64-bit address a
// value live and spills).
__device__ __forceinline__ void opaque(float*& pointer) { asm volatile("" : "+l"(pointer)); }

// Calls f(at, mi, i, pair) for this thread's values acc[mi][i] of a consumer warpgroup's part of the tile
// (corner m0, n0 of D) inside D, `at` their place in the fp32 tile `sums` [M][N]: unswapped where N is even,
// once a pair of adjacent columns (i even, `at` 8-byte aligned, pair true); otherwise once a value.
template <typename F>
__device__ __forceinline__ void walk_sums(float* sums, int m0, int n0, int M, int N, F&& f) {
  const int across = sm90::accumulator_row();    // the thread's row of an m64 atom of the product
  const int first = sm90::accumulator_column();  // its first column of each 8 of the product
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if constexpr (!SWAP_AB) {
        const int row = m0 + mi * 64 + across + 8 * half;
        if (row >= M) continue;
        float* at = sums + static_cast<long long>(row) * N + n0 + first;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8) {
          opaque(at);
          const int col = n0 + 8 * j + first;
          if (col >= N) continue;
          if (N % 2 == 0) {  // col even: the pair lies inside D, 8-byte aligned
            f(at, mi, 4 * j + 2 * half, true);
          } else {
            f(at, mi, 4 * j + 2 * half, false);
            if (col + 1 < N) f(at + 1, mi, 4 * j + 2 * half + 1, false);
          }
        }
      } else {
        const int col = n0 + mi * 64 + across + 8 * half;
        if (col >= N) continue;
        float* column = sums + col;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            opaque(column);
            const int row = m0 + 8 * j + first + e;
            if (row < M) f(column + static_cast<long long>(row) * N, mi, 4 * j + 2 * half + e, false);
          }
      }
    }
}

// EPILOGUE 3: this warpgroup's part of slice tile.split (or of stream-K's `contributed` k steps of the tile)
// added into the zeroed fp32 sums `acc_sum` [M][N]; each warp whose arrival completes `total` reads the
// finished sums of its elements and stores D with the bias and activation. `acc` becomes the sum.
__device__ __forceinline__ void reduce_in_l2(float (&acc)[M_ATOMS][MMA_N / 2], float* __restrict__ acc_sum,
                                             int* __restrict__ arrivals, out_t* __restrict__ d,
                                             const elem* __restrict__ bias, const sm90::TileCoord& tile,
                                             int tiles_m, int tiles_n, int consumer, int m0, int n0, int M,
                                             int N, int contributed, int total) {
  if (tile.m >= tiles_m || tile.n >= tiles_n) return;  // a cluster's block past the edge of D: nothing to add
  walk_sums(acc_sum, m0, n0, M, N, [&](float* at, int mi, int i, bool pair) {
    if (pair) {
      reduce_add_pair(at, acc[mi][i], acc[mi][i + 1]);
    } else {
      reduce_add(at, acc[mi][i]);
    }
  });
  if (!last_to_arrive(arrivals, tile, tiles_n, consumer, contributed, total)) return;
  // One load a value (or pair) in turn: the walk that keeps them in flight (walk_values) measured 3% slower
  // here (H100, 128 x 4096 x 4096, split-K 2: 24.8-24.9 us against 23.9-24.2), where the adds, not the
  // loads, cost.
  walk_sums(acc_sum, m0, n0, M, N, [&](float* at, int mi, int i, bool pair) {
    if (pair) {
      const float2 sum = __ldcg(reinterpret_cast<const float2*>(at));
      acc[mi][i] = sum.x;
      acc[mi][i + 1] = sum.y;
    } else {
      acc[mi][i] = __ldcg(at);
    }
  });
  store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
}

}  // namespace gemm
