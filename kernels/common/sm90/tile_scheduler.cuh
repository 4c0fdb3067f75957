// Which output tile a block computes, and in which order: a static schedule (one tile a block, the block
// index mapped through the raster order), a persistent one (a block walks tiles blockIdx.x, + gridDim.x,
// ...) or stream-K (a block walks an equal share of every tile's k steps, StreamKShare). The raster order
// groups tiles in bands SWIZZLE tiles wide, so that the blocks running at once share rows of A and columns of
// B in L2: along M, a band spans SWIZZLE column tiles and consecutive tiles go down its rows; along N, the
// band spans SWIZZLE row tiles and consecutive tiles go along its columns.
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

// Stream-K: the tiles x k_tiles iterations (one k step of one tile each; tile-major, k steps minor) cut into
// gridDim.x contiguous shares whose sizes differ by at most one. A share covers the end of a tile, whole
// tiles and the start of another (or, where it is shorter than a tile's k steps, a run from one tile's
// middle): walked as the tiles it touches (`tiles`), each for its k steps in the share (`k_steps`). Every
// block computes the same cut, so the blocks sharing a tile need no communication to know their parts.
struct StreamKShare {
  long long begin;  // this block's first iteration
  long long end;    // one past its last
  int k_tiles;
  __device__ __forceinline__ static StreamKShare of_block(int tiles, int k_tiles) {
    const long long iterations = static_cast<long long>(tiles) * k_tiles;
    const long long block = blockIdx.x, blocks = gridDim.x;
    return StreamKShare{iterations * block / blocks, iterations * (block + 1) / blocks, k_tiles};
  }
  // The tiles the share touches, in order (none where it is empty).
  __device__ __forceinline__ TileWalk tiles() const {
    if (begin >= end) return TileWalk{0, 1, 0};
    return TileWalk{static_cast<int>(begin / k_tiles), 1, static_cast<int>((end - 1) / k_tiles) + 1};
  }
  // The k steps [first_k, end_k) of tile `tile` in the share.
  __device__ __forceinline__ void k_steps(int tile, int& first_k, int& end_k) const {
    const long long first = static_cast<long long>(tile) * k_tiles;
    first_k = static_cast<int>(max(begin - first, 0ll));
    end_k = static_cast<int>(min(end - first, static_cast<long long>(k_tiles)));
  }
};

}  // namespace sm90
