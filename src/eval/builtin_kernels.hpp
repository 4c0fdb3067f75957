// evotune's own device kernels: reproducible random fill and NaN poisoning of buffers of any DType, guard
// canaries, input checksums, and the comparison of outputs on the device.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/launch_spec.hpp"
#include "cuda/resources.hpp"

namespace evotune {

// Compiles the builtin kernels with NVRTC for arch ("sm_90"); include_dirs hold the CUDA headers
// (cuda_fp16.h). Throws Error with the compiler's first message on failure.
std::string compile_builtin_kernels(const std::vector<std::string>& include_dirs, const std::string& arch);

// The builtin kernels loaded in the current context.
class BuiltinKernels {
 public:
  BuiltinKernels() = default;                         // not loaded
  explicit BuiltinKernels(const std::string& cubin);  // loads in the current context; throws CudaError

  // Fills count elements at `buffer` as FillSpec says. Element i of a random fill is a counter-based hash
  // of (seed, i): the same seed gives the same data, on any launch shape. Integer types get
  // floor(low + u * (high - low + 1)). Asynchronous on `stream`; throws CudaError when the launch fails.
  void fill(CUstream stream, CUdeviceptr buffer, DType dtype, std::int64_t count, const FillSpec& spec,
            std::uint64_t seed) const;

  // Writes NaN (0x7e00 half, 0x7fc0 bfloat16, quiet NaN float/double; the maximum value for integer
  // types) over count elements, so elements a kernel leaves unwritten show. Asynchronous on `stream`.
  void poison(CUstream stream, CUdeviceptr buffer, DType dtype, std::int64_t count) const;

  // Writes the guard canary (canary_pattern(bytes), eval/guard_regions.hpp) over a margin of `bytes` at any
  // address (the margin after an odd-sized buffer is not word-aligned). Asynchronous on `stream`.
  void canary(CUstream stream, CUdeviceptr margin, std::size_t bytes) const;

  // Adds the 64-bit checksum of `bytes` bytes at `data` to the u64 at `sum` (which the caller zeroes first):
  // equal bytes give equal sums. Asynchronous on `stream`.
  void checksum(CUstream stream, CUdeviceptr data, std::size_t bytes, CUdeviceptr sum) const;

  // Adds the error of `count` elements at `output` against those at `reference` into the four u64 at
  // `stats` (which the caller zeroes first): max_abs (a double's bits), the sums of squared differences and
  // of squared reference values (doubles), and the count of unmatched non-finite outputs, with
  // compare_outputs()'s rules (eval/compare.hpp). Asynchronous on `stream`.
  void compare(CUstream stream, CUdeviceptr reference, CUdeviceptr output, DType dtype, std::int64_t count,
               CUdeviceptr stats) const;

  // Counts the elements at a and b that differ bit for bit into result[0] and keeps the lowest such index
  // in result[1] (the caller sets them to 0 and ~0 first). Asynchronous on `stream`.
  void differ(CUstream stream, CUdeviceptr a, CUdeviceptr b, DType dtype, std::int64_t count,
              CUdeviceptr result) const;

  void abandon() noexcept { module_.abandon(); }

 private:
  cuda::Module module_;
  CUfunction fill_ = nullptr;
  CUfunction poison_ = nullptr;
  CUfunction canary_ = nullptr;
  CUfunction checksum_ = nullptr;
  CUfunction compare_ = nullptr;
  CUfunction differ_ = nullptr;
};

// The seed of validation round `round` (0: the validation seed itself), so rounds get unrelated inputs.
std::uint64_t validation_round_seed(std::uint64_t validation_seed, int round);

// A per-buffer seed derived from a validation seed, so buffers of one problem get unrelated data.
std::uint64_t buffer_seed(std::uint64_t validation_seed, std::size_t buffer_index);

}  // namespace evotune
