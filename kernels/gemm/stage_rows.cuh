// Staging of a matrix whose rows TMA cannot address: a copy of [rows, cols] 16-bit elements (row-major,
// cols not a multiple of 8, so its rows are not 16 bytes apart) into rows `pitch` elements apart, pitch a
// multiple of 8, the pad columns zero. Parameter-free: a template includes it before its #defines and wraps
// it in a kernel of its element type.
//
// Each thread writes whole 16-byte chunks of the staged rows (8 elements), consecutive threads consecutive
// chunks, so the stores are coalesced 16-byte stores. A chunk's 8 source elements start at any even byte
// address (rows of an odd number of elements): the thread loads the two aligned 16-byte words that cover
// them and shifts the 8 elements out of the pair (two vector loads, the second one the next thread's first,
// served by L1), or, at the source's ends and in a row's last chunk, loads element by element.
#pragma once

namespace stage {

// The 16 bytes at byte `shift` (even, 0..14) of the 32 bytes lo, hi: words shift / 4 .. + 3, and with a
// 2-byte remainder each word funnel-shifted from two.
__device__ __forceinline__ uint4 bytes_at(const uint4& lo, const uint4& hi, unsigned shift) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const unsigned q = shift / 4;
  const bool half = shift % 4 != 0;
  unsigned out[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    // w[q + j] and w[q + j + 1], chosen by selects (a run-time index into w would put it in local memory)
    const unsigned a = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
    const unsigned b = q == 0 ? w[j + 1] : q == 1 ? w[j + 2] : q == 2 ? w[j + 3] : w[j + 4];
    out[j] = half ? __funnelshift_r(a, b, 16) : a;
  }
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// The staged rows' length: cols rounded up to a multiple of 8 elements (16 bytes), the least TMA takes (the
// maps' dims stay cols, so TMA reads zeros past them whatever the pad columns hold).
__host__ __device__ constexpr int pitch(int cols) { return (cols + 7) / 8 * 8; }

// staged[r * pitch + c] = source[r * cols + c] for c < cols, 0 for cols <= c < pitch; grid-stride over the
// staged chunks. T is a 16-bit type; `staged` is 16-byte aligned and pitch % 8 == 0.
template <typename T>
__device__ __forceinline__ void stage_rows(const T* __restrict__ source, T* __restrict__ staged, int rows,
                                           int cols, int pitch) {
  static_assert(sizeof(T) == 2, "rows of 16-bit elements");
  const long long chunks_per_row = pitch / 8;
  const long long chunks = rows * chunks_per_row;
  const auto* bits = reinterpret_cast<const unsigned short*>(source);
  const unsigned long long begin = reinterpret_cast<unsigned long long>(source);
  const unsigned long long end = begin + 2ull * rows * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < chunks;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / chunks_per_row;
    const int col = static_cast<int>(i % chunks_per_row) * 8;
    const long long first = row * cols + col;  // the chunk's first source element
    const unsigned long long at = begin + 2ull * first;
    const unsigned long long window = at & ~15ull;  // the aligned 16 bytes holding its first element
    const unsigned shift = static_cast<unsigned>(at - window);
    uint4 chunk;
    if (col + 8 <= cols && window >= begin && window + (shift ? 32 : 16) <= end) {
      const uint4 lo = __ldg(reinterpret_cast<const uint4*>(window));
      chunk = shift ? bytes_at(lo, __ldg(reinterpret_cast<const uint4*>(window + 16)), shift) : lo;
    } else {
      unsigned short e[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) e[k] = col + k < cols ? bits[first + k] : static_cast<unsigned short>(0);
      chunk = make_uint4(e[0] | (unsigned{e[1]} << 16), e[2] | (unsigned{e[3]} << 16),
                         e[4] | (unsigned{e[5]} << 16), e[6] | (unsigned{e[7]} << 16));
    }
    *reinterpret_cast<uint4*>(staged + row * pitch + col) = chunk;
  }
}

}  // namespace stage
