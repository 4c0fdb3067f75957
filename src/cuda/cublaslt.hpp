// cuBLASLt, loaded at run time (dlopen libcublasLt.so.13; it comes with the CUDA toolkit), as the vendor
// baseline of a GEMM space: one row-major product D = A B set up once, its heuristic's algorithms enqueued on
// a stream. Only what timing a baseline needs.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/baseline.hpp"

namespace evotune::cuda {

// D [M, N] = A [M, K] B, row-major, B [K, N] (or [N, K] with b_kmajor), fp32 accumulation, on the current
// context's device. Throws Error naming the call where cuBLASLt is missing or refuses the problem.
class CublasLtGemm {
 public:
  // `candidates`: how many of the heuristic's algorithms to ask for (it may return fewer).
  CublasLtGemm(const GemmBaselineSpec& spec, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, int candidates);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  int algorithms() const;  // how many the heuristic returned (>= 1)
  // Enqueues the product with the heuristic's algorithm `index` (0: its first choice) on `stream`.
  void run(int index, CUstream stream) const;
  // The library's version, "13.0.2".
  std::string version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace evotune::cuda
