// cuBLASLt through dlopen: the handle, the matmul and layout descriptors of one row-major product, and the
// heuristic's algorithms for it.
#include "cuda/cublaslt.hpp"

#include <cublasLt.h>
#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "core/error.hpp"
#include "cuda/driver.hpp"

namespace evotune::cuda {
namespace {

// One X a line, left alone: clang-format 14 reflows such lists differently on each pass.
// clang-format off
#define EVOTUNE_CUBLASLT_FUNCTIONS(X) \
  X(cublasLtCreate) \
  X(cublasLtDestroy) \
  X(cublasLtGetVersion) \
  X(cublasLtMatmulDescCreate) \
  X(cublasLtMatmulDescDestroy) \
  X(cublasLtMatmulDescSetAttribute) \
  X(cublasLtMatrixLayoutCreate) \
  X(cublasLtMatrixLayoutDestroy) \
  X(cublasLtMatmulPreferenceCreate) \
  X(cublasLtMatmulPreferenceDestroy) \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic) \
  X(cublasLtMatmul) \
  X(cublasLtGetStatusString)
// clang-format on

struct Api {
#define EVOTUNE_DECLARE(name) decltype(&::name) name = nullptr;
  EVOTUNE_CUBLASLT_FUNCTIONS(EVOTUNE_DECLARE)
#undef EVOTUNE_DECLARE
};

const Api& api() {
  static Api loaded;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcublasLt.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      failure = std::string("cuBLASLt not available (libcublasLt.so.13 not found): ") + dlerror();
      return;
    }
#define EVOTUNE_LOAD(name)                                                      \
  loaded.name = reinterpret_cast<decltype(loaded.name)>(dlsym(library, #name)); \
  if (!loaded.name && failure.empty()) failure = "cuBLASLt lacks the function " #name;
    EVOTUNE_CUBLASLT_FUNCTIONS(EVOTUNE_LOAD)
#undef EVOTUNE_LOAD
  });
  if (!failure.empty()) throw Error(failure);
  return loaded;
}

void check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(call) + ": " + api().cublasLtGetStatusString(status));
}

cudaDataType cublas_data_type(DType type) {
  switch (type) {
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::f32:
      return CUDA_R_32F;
    default:
      throw Error("cuBLASLt baseline: element type " + std::string(to_string(type)) +
                  " (fp16, bf16 inputs; fp16, bf16 or fp32 output)");
  }
}

}  // namespace

struct CublasLtGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, d_layout = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> heuristics;
  CUdeviceptr a = 0, b = 0, d = 0, workspace = 0;
  std::size_t workspace_bytes = 32u << 20;
};

// Row-major D [M, N] = A [M, K] B is column-major D^T [N, M] = B^T A^T: cuBLASLt's first operand is B (as
// [N, K] column-major: B [K, N] row-major needs no transpose, B [N, K] row-major is [K, N] column-major,
// transposed), its second is A ([K, M] column-major, no transpose).
CublasLtGemm::CublasLtGemm(const GemmBaselineSpec& spec, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d,
                           int candidates)
    : state_(std::make_unique<State>()) {
  const Api& lt = api();
  State& s = *state_;
  s.a = a;
  s.b = b;
  s.d = d;
  check(lt.cublasLtCreate(&s.handle), "cublasLtCreate");
  check(lt.cublasLtMatmulDescCreate(&s.operation, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  const cublasOperation_t transpose_first = spec.b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  check(lt.cublasLtMatmulDescSetAttribute(s.operation, CUBLASLT_MATMUL_DESC_TRANSA, &transpose_first,
                                          sizeof(transpose_first)),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  const auto n = static_cast<std::uint64_t>(spec.n), m = static_cast<std::uint64_t>(spec.m),
             k = static_cast<std::uint64_t>(spec.k);
  const cudaDataType input = cublas_data_type(spec.input);
  if (spec.b_kmajor) {
    check(lt.cublasLtMatrixLayoutCreate(&s.b_layout, input, k, n, static_cast<std::int64_t>(k)),
          "cublasLtMatrixLayoutCreate(B)");
  } else {
    check(lt.cublasLtMatrixLayoutCreate(&s.b_layout, input, n, k, static_cast<std::int64_t>(n)),
          "cublasLtMatrixLayoutCreate(B)");
  }
  check(lt.cublasLtMatrixLayoutCreate(&s.a_layout, input, k, m, static_cast<std::int64_t>(k)),
        "cublasLtMatrixLayoutCreate(A)");
  check(lt.cublasLtMatrixLayoutCreate(&s.d_layout, cublas_data_type(spec.output), n, m,
                                      static_cast<std::int64_t>(n)),
        "cublasLtMatrixLayoutCreate(D)");
  check(lt.cublasLtMatmulPreferenceCreate(&s.preference), "cublasLtMatmulPreferenceCreate");
  check(lt.cublasLtMatmulPreferenceSetAttribute(s.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &s.workspace_bytes, sizeof(s.workspace_bytes)),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  s.heuristics.resize(static_cast<std::size_t>(std::max(candidates, 1)));
  int returned = 0;
  check(lt.cublasLtMatmulAlgoGetHeuristic(s.handle, s.operation, s.b_layout, s.a_layout, s.d_layout,
                                          s.d_layout, s.preference, static_cast<int>(s.heuristics.size()),
                                          s.heuristics.data(), &returned),
        "cublasLtMatmulAlgoGetHeuristic");
  if (returned < 1) throw Error("cublasLtMatmulAlgoGetHeuristic: no algorithm for this problem");
  s.heuristics.resize(static_cast<std::size_t>(returned));
  cuda::check(driver().cuMemAlloc(&s.workspace, s.workspace_bytes), "cuMemAlloc (cuBLASLt workspace)");
}

CublasLtGemm::~CublasLtGemm() {
  State& s = *state_;
  if (s.workspace) log_release_failure(driver().cuMemFree(s.workspace), "cuMemFree");
  const Api& lt = api();  // loaded: the constructor got past it
  if (s.preference) lt.cublasLtMatmulPreferenceDestroy(s.preference);
  if (s.d_layout) lt.cublasLtMatrixLayoutDestroy(s.d_layout);
  if (s.a_layout) lt.cublasLtMatrixLayoutDestroy(s.a_layout);
  if (s.b_layout) lt.cublasLtMatrixLayoutDestroy(s.b_layout);
  if (s.operation) lt.cublasLtMatmulDescDestroy(s.operation);
  if (s.handle) lt.cublasLtDestroy(s.handle);
}

int CublasLtGemm::algorithms() const { return static_cast<int>(state_->heuristics.size()); }

void CublasLtGemm::run(int index, CUstream stream) const {
  const State& s = *state_;
  const float one = 1.0f, zero = 0.0f;
  check(api().cublasLtMatmul(s.handle, s.operation, &one, reinterpret_cast<const void*>(s.b), s.b_layout,
                             reinterpret_cast<const void*>(s.a), s.a_layout, &zero,
                             reinterpret_cast<const void*>(s.d), s.d_layout, reinterpret_cast<void*>(s.d),
                             s.d_layout, &s.heuristics.at(static_cast<std::size_t>(index)).algo,
                             reinterpret_cast<void*>(s.workspace), s.workspace_bytes,
                             reinterpret_cast<cudaStream_t>(stream)),
        "cublasLtMatmul");
}

std::string CublasLtGemm::version() const {
  const std::size_t v = api().cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace evotune::cuda
