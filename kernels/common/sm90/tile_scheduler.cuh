// Which output tile a block computes, and in which order: a static schedule (one tile a block, the block
// index mapped through the raster order) or a persistent one (a block walks tiles blockIdx.x, + gridDim.x,
// ...). The raster order groups tiles in bands SWIZZLE tiles wide, so that the blocks running at once share
// rows of A and columns of B in L2: along M, a band spans SWIZZLE column tiles and consecutive tiles go down
// its rows; along N, the band spans SWIZZLE row tiles and consecutive tiles go along its columns.
#pragma once

namespace sm90 {

struct TileCoord {
  int m;      // row tile
  int n;      // column tile
  int split;  // slice of the reduction dimension (split-K), 0 without one
};

// Tile `id` of tiles_m x tiles_n x splits, splits outermost (every slice of a tile far apart in time).
__device__ __forceinline__ TileCoord raster_tile(int id, int tiles_m, int tiles_n, bool along_n,
                                                 int swizzle) {
  const int per_split = tiles_m * tiles_n;
  TileCoord coord;
  coord.split = id / per_split;
  id -= coord.split * per_split;
  const int across = along_n ? tiles_m : tiles_n;  // the dimension a band spans
  const int along = along_n ? tiles_n : tiles_m;   // the dimension consecutive tiles walk
  const int band = id / (swizzle * along);
  const int first = band * swizzle;
  const int width = min(swizzle, across - first);
  const int within = id - band * swizzle * along;
  const int a = first + within % width;  // index across
  const int b = within / width;          // index along
  coord.m = along_n ? a : b;
  coord.n = along_n ? b : a;
  return coord;
}

// The work-tile sequence of this block: static (one tile, `first` only) or persistent. With clusters of
// `cluster` blocks (consecutive blockIdx.x) a work tile is the cluster's: every block of a cluster walks the
// same sequence, in step.
struct TileWalk {
  int first;
  int step;
  int count;
  __device__ __forceinline__ static TileWalk of_block(int count, bool persistent, int cluster = 1) {
    const int walker = static_cast<int>(blockIdx.x) / cluster;
    return TileWalk{walker, persistent ? static_cast<int>(gridDim.x) / cluster : count, count};
  }
};

}  // namespace sm90
