// Source and launches of evotune's own device kernels: fill, poison, guard canary, checksum, comparisons.
#include "eval/builtin_kernels.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "cuda/nvrtc.hpp"

namespace evotune {
namespace {

// dtype codes follow the order of evotune::DType: f16, bf16, f32, f64, i32, i64.
const char* kSource = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ unsigned long long evotune_mix(unsigned long long x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

extern "C" __global__ void evotune_fill(void* out, long long n, int dtype, unsigned long long seed,
                                        double low, double high) {
  const unsigned long long key = evotune_mix(seed);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const double u = (evotune_mix(key ^ (unsigned long long)i) >> 11) * 0x1.0p-53;  // [0, 1)
    const double v = low + u * (high - low);
    switch (dtype) {
      case 0: ((__half*)out)[i] = __double2half(v); break;
      case 1: ((__nv_bfloat16*)out)[i] = __double2bfloat16(v); break;
      case 2: ((float*)out)[i] = (float)v; break;
      case 3: ((double*)out)[i] = v; break;
      case 4: ((int*)out)[i] = (int)floor(low + u * (high - low + 1)); break;
      case 5: ((long long*)out)[i] = (long long)floor(low + u * (high - low + 1)); break;
    }
  }
}

// The guard regions' canary: byte j of a margin is byte j % 8 (little-endian) of evotune_mix(0xC0FFEE0DDF00D ^
// j / 8), as canary_pattern() (eval/guard_regions.cpp) computes it on the host. Written a byte at a time: the
// margin after a buffer starts where its payload ends, which for an odd element count is not word-aligned.
extern "C" __global__ void evotune_canary(unsigned char* out, long long bytes) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < bytes;
       j += (long long)gridDim.x * blockDim.x)
    out[j] = (unsigned char)(evotune_mix(0xC0FFEE0DDF00DULL ^ (unsigned long long)(j / 8)) >> (8 * (j % 8)));
}

// An order-independent 64-bit checksum of `bytes` bytes (the sum of a hash of each 8-byte word and its
// index, the tail bytes as one more word), added to *sum: equal data, equal sum, on any launch shape.
// `data` is 8-byte aligned (every buffer starts at a 256-byte boundary).
extern "C" __global__ void evotune_checksum(const unsigned char* data, long long bytes,
                                            unsigned long long* sum) {
  const long long words = bytes / 8;
  unsigned long long local = 0;
  const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (long long i = first; i < words; i += (long long)gridDim.x * blockDim.x) {
    const unsigned long long word = ((const unsigned long long*)data)[i];
    local += evotune_mix(word ^ (0x9e3779b97f4a7c15ULL * (unsigned long long)(i + 1)));
  }
  if (first == 0 && bytes % 8 != 0) {
    unsigned long long tail = 0;
    for (long long b = words * 8; b < bytes; ++b) tail = (tail << 8) | data[b];
    local += evotune_mix(tail ^ 0x5bd1e995ULL);
  }
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffffu, local, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, local);
}

__device__ double evotune_load(const void* data, long long i, int dtype) {
  switch (dtype) {
    case 0: return __half2float(((const __half*)data)[i]);
    case 1: return __bfloat162float(((const __nv_bfloat16*)data)[i]);
    case 2: return ((const float*)data)[i];
    case 3: return ((const double*)data)[i];
    case 4: return ((const int*)data)[i];
    default: return (double)((const long long*)data)[i];
  }
}

// The error of an output against the reference's, as compare_outputs() (eval/compare.cpp) computes it on
// the host, added into stats: [0] max |out - ref| as the bits of a non-negative double (atomicMax orders
// those as the doubles), [1] sum of (out - ref)^2, [2] sum of ref^2 (both over elements where both are
// finite), [3] outputs non-finite where the reference is not the same non-finite value. A finite output
// where the reference is non-finite makes max_abs infinite.
extern "C" __global__ void evotune_compare(const void* reference, const void* output, long long n, int dtype,
                                           unsigned long long* stats) {
  double max_abs = 0, diff_squares = 0, reference_squares = 0;
  unsigned long long non_finite = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const double ref = evotune_load(reference, i, dtype);
    const double out = evotune_load(output, i, dtype);
    if (!isfinite(out)) {
      const bool same = isnan(ref) ? isnan(out) : (isinf(ref) && ref == out);
      non_finite += same ? 0 : 1;
      continue;
    }
    if (!isfinite(ref)) {
      max_abs = __longlong_as_double(0x7ff0000000000000LL);
      continue;
    }
    const double diff = out - ref;
    max_abs = fmax(max_abs, fabs(diff));
    diff_squares += diff * diff;
    reference_squares += ref * ref;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, offset));
    diff_squares += __shfl_down_sync(0xffffffffu, diff_squares, offset);
    reference_squares += __shfl_down_sync(0xffffffffu, reference_squares, offset);
    non_finite += __shfl_down_sync(0xffffffffu, non_finite, offset);
  }
  if (threadIdx.x % 32 != 0) return;
  atomicMax(&stats[0], (unsigned long long)__double_as_longlong(max_abs));
  atomicAdd((double*)&stats[1], diff_squares);
  atomicAdd((double*)&stats[2], reference_squares);
  atomicAdd(&stats[3], non_finite);
}

// Elements of `size` bytes that differ bit for bit between a and b: result[0] += their count, result[1] =
// min(result[1], the first one's index); the caller sets result to {0, ~0}.
extern "C" __global__ void evotune_differ(const unsigned char* a, const unsigned char* b, long long n,
                                          int size, unsigned long long* result) {
  unsigned long long differing = 0, first = ~0ULL;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    bool same = true;
    for (int byte = 0; byte < size; ++byte) same = same && a[i * size + byte] == b[i * size + byte];
    if (same) continue;
    ++differing;
    first = min(first, (unsigned long long)i);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    differing += __shfl_down_sync(0xffffffffu, differing, offset);
    first = min(first, __shfl_down_sync(0xffffffffu, first, offset));
  }
  if (threadIdx.x % 32 != 0 || differing == 0) return;
  atomicAdd(&result[0], differing);
  atomicMin(&result[1], first);
}

extern "C" __global__ void evotune_poison(void* out, long long n, int dtype) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    switch (dtype) {
      case 0: ((unsigned short*)out)[i] = 0x7e00; break;
      case 1: ((unsigned short*)out)[i] = 0x7fc0; break;
      case 2: ((unsigned int*)out)[i] = 0x7fc00000u; break;
      case 3: ((unsigned long long*)out)[i] = 0x7ff8000000000000ULL; break;
      case 4: ((int*)out)[i] = 0x7fffffff; break;
      case 5: ((long long*)out)[i] = 0x7fffffffffffffffLL; break;
    }
  }
}
)";

constexpr unsigned kBlock = 256;
constexpr long long kMaxBlocks = 4096;  // grid-stride loops cover the rest

void launch(CUfunction function, CUstream stream, std::int64_t count, void** params) {
  const long long blocks = std::clamp<long long>((count + kBlock - 1) / kBlock, 1, kMaxBlocks);
  cuda::check(cuda::driver().cuLaunchKernel(function, static_cast<unsigned>(blocks), 1, 1, kBlock, 1, 1, 0,
                                            stream, params, nullptr),
              "cuLaunchKernel");
}

int dtype_code(DType dtype) { return static_cast<int>(dtype); }

}  // namespace

std::string compile_builtin_kernels(const std::vector<std::string>& include_dirs, const std::string& arch) {
  std::vector<std::string> options{"--gpu-architecture=" + arch};
  for (const auto& dir : include_dirs) options.push_back("-I" + dir);
  std::string why;
  try {
    cuda::NvrtcProgram program(kSource, "evotune_builtins.cu");
    if (program.compile(options) == NVRTC_SUCCESS) return program.cubin();
    const std::string log = program.log();
    why = log.substr(0, log.find('\n'));
  } catch (const cuda::NvrtcError& e) {
    why = e.what();
  }
  throw Error("cannot compile evotune's builtin kernels for " + arch + ": " + why);
}

BuiltinKernels::BuiltinKernels(const std::string& cubin) : module_(cuda::Module::load(cubin)) {
  fill_ = module_.function("evotune_fill");
  poison_ = module_.function("evotune_poison");
  canary_ = module_.function("evotune_canary");
  checksum_ = module_.function("evotune_checksum");
  compare_ = module_.function("evotune_compare");
  differ_ = module_.function("evotune_differ");
}

void BuiltinKernels::fill(CUstream stream, CUdeviceptr buffer, DType dtype, std::int64_t count,
                          const FillSpec& spec, std::uint64_t seed) const {
  const bool constant = spec.kind == FillSpec::Kind::constant;
  double low = constant ? spec.value : spec.low;
  double high = constant ? spec.value : spec.high;
  if (constant && !is_floating(dtype)) high = low - 1;  // floor(low + u * 0) == low
  int code = dtype_code(dtype);
  unsigned long long seed_arg = seed;
  long long n = count;
  void* params[] = {&buffer, &n, &code, &seed_arg, &low, &high};
  launch(fill_, stream, count, params);
}

void BuiltinKernels::poison(CUstream stream, CUdeviceptr buffer, DType dtype, std::int64_t count) const {
  int code = dtype_code(dtype);
  long long n = count;
  void* params[] = {&buffer, &n, &code};
  launch(poison_, stream, count, params);
}

void BuiltinKernels::canary(CUstream stream, CUdeviceptr margin, std::size_t bytes) const {
  long long n = static_cast<long long>(bytes);
  void* params[] = {&margin, &n};
  launch(canary_, stream, n, params);
}

void BuiltinKernels::checksum(CUstream stream, CUdeviceptr data, std::size_t bytes, CUdeviceptr sum) const {
  long long n = static_cast<long long>(bytes);
  void* params[] = {&data, &n, &sum};
  launch(checksum_, stream, std::max<long long>(n / 8, 1), params);
}

void BuiltinKernels::compare(CUstream stream, CUdeviceptr reference, CUdeviceptr output, DType dtype,
                             std::int64_t count, CUdeviceptr stats) const {
  long long n = count;
  int code = dtype_code(dtype);
  void* params[] = {&reference, &output, &n, &code, &stats};
  launch(compare_, stream, count, params);
}

void BuiltinKernels::differ(CUstream stream, CUdeviceptr a, CUdeviceptr b, DType dtype, std::int64_t count,
                            CUdeviceptr result) const {
  long long n = count;
  int size = static_cast<int>(size_of(dtype));
  void* params[] = {&a, &b, &n, &size, &result};
  launch(differ_, stream, count, params);
}

std::uint64_t validation_round_seed(std::uint64_t validation_seed, int round) {
  if (round == 0) return validation_seed;
  return buffer_seed(validation_seed ^ 0x5851f42d4c957f2dULL, static_cast<std::size_t>(round) + 1000);
}

std::uint64_t buffer_seed(std::uint64_t validation_seed, std::size_t buffer_index) {
  std::uint64_t x = validation_seed ^ (0x9e3779b97f4a7c15ULL * (buffer_index + 1));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace evotune
