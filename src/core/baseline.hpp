// A space's vendor-library baseline: what the GPU worker times beside the variants (a GEMM through
// cuBLASLt), and what it measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.hpp"

namespace evotune {

// The product the library computes, on the space's own buffers.
struct GemmBaselineSpec {
  std::string library = "cublasLt";
  std::int64_t m = 0, n = 0, k = 0;
  bool b_kmajor = false;                  // B is [N, K] (nn.Linear's weight) instead of [K, N]
  std::string a = "A", b = "B", d = "D";  // the buffers, by name
  DType input = DType::f16;
  DType output = DType::f16;
};

// The library's times on the worker's GPU, taken like a variant's (same timing mode and warm-up).
struct BaselineTiming {
  std::string library;      // "cublasLt 13.0.2"
  double heuristic_us = 0;  // the heuristic's first algorithm
  double best_us = 0;       // the fastest of the algorithms tried
  int best_index = 0;       // its rank in the heuristic's list
  int algorithms = 0;       // how many were tried
  std::string timing_mode;  // "graph x3", "single"
  // The best algorithm re-timed in the rerank's rounds, interleaved with the configs (the median of its
  // round medians); 0 where the run had no rerank. Compare it with the configs' re-measured medians: both
  // were timed at the same clocks and temperature.
  double reranked_us = 0;
};

// The baseline's time to set against a config's: the rerank's median where both were re-timed in its
// interleaved rounds, else the best algorithm's time at the run's start.
inline double comparable_us(const BaselineTiming& baseline, bool config_reranked) {
  return config_reranked && baseline.reranked_us > 0 ? baseline.reranked_us : baseline.best_us;
}

}  // namespace evotune
