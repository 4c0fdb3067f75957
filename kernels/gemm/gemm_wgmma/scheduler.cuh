// The wgmma GEMM template's schedule: the k steps of a work tile (split-K slices, stream-K shares) and the
// tile a block of a cluster computes.
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace gemm {

// The k steps of slice `split` of `k_tiles`.
__device__ __forceinline__ void k_range(int split, int k_tiles, int& begin, int& end) {
  const int per = sm90::cdiv(k_tiles, SPLIT_K);
  begin = min(split * per, k_tiles);
  end = min(begin + per, k_tiles);
}

// The k steps [begin, end) this block computes of work tile `id` of its walk: the tile's slice (split-K; all
// of them without), or (STREAM_K) the part of the tile in the block's share. The producer and the consumers
// walk the same tiles (the kernel's `walk`: the share's tiles with STREAM_K) and take each one's k steps
// here.
__device__ __forceinline__ void unit_k_steps(const sm90::StreamKShare& share, int id,
                                             const sm90::TileCoord& tile, int k_tiles, int& begin, int& end) {
  if constexpr (STREAM_K) {
    share.k_steps(id, begin, end);
  } else {
    k_range(tile.split, k_tiles, begin, end);
  }
}

// The tile of work tile `id` that this block (rank `rank` of its cluster) computes: the raster order walks
// cluster tiles of CLUSTER_M x CLUSTER_N tiles.
__device__ __forceinline__ sm90::TileCoord block_tile(int id, int tiles_m, int tiles_n, int rank) {
  sm90::TileCoord tile =
      sm90::raster_tile(id, sm90::cdiv(tiles_m, CLUSTER_M), sm90::cdiv(tiles_n, CLUSTER_N), RASTER, SWIZZLE);
  tile.m = tile.m * CLUSTER_M + (CLUSTER_M == 2 ? rank : 0);
  tile.n = tile.n * CLUSTER_N + (CLUSTER_N == 2 ? rank : 0);
  return tile;
}

}  // namespace gemm
