// Source and launches of the fill and poison kernels.
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

// The guard regions' canary: word i of a margin is evotune_mix(0xC0FFEE0DDF00D ^ i), as canary_pattern()
// (eval/guard_regions.cpp) computes it on the host.
extern "C" __global__ void evotune_canary(unsigned long long* out, long long words) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = evotune_mix(0xC0FFEE0DDF00DULL ^ (unsigned long long)i);
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
  throw Error("cannot compile evotune's fill kernels for " + arch + ": " + why);
}

BuiltinKernels::BuiltinKernels(const std::string& cubin) : module_(cuda::Module::load(cubin)) {
  fill_ = module_.function("evotune_fill");
  poison_ = module_.function("evotune_poison");
  canary_ = module_.function("evotune_canary");
  checksum_ = module_.function("evotune_checksum");
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
  long long words = static_cast<long long>(bytes / 8);
  void* params[] = {&margin, &words};
  launch(canary_, stream, words, params);
}

void BuiltinKernels::checksum(CUstream stream, CUdeviceptr data, std::size_t bytes, CUdeviceptr sum) const {
  long long n = static_cast<long long>(bytes);
  void* params[] = {&data, &n, &sum};
  launch(checksum_, stream, std::max<long long>(n / 8, 1), params);
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
