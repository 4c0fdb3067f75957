// The space's library baseline (cuBLASLt for a GEMM space) through the worker pool: one job per heuristic
// algorithm, timed like a variant, so that the tune compares like with like.
#pragma once

#include <cstdint>
#include <optional>

#include "core/baseline.hpp"
#include "core/eval_settings.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {

// A job timing the setup's baseline with its heuristic's algorithm of rank `algorithm`, on `seed`'s inputs.
PoolJob baseline_job(std::int64_t ticket, int algorithm, std::uint64_t seed, const EvalSettings& eval);

// Times the heuristic's first `candidates` algorithms one job each (every worker's setup carries the
// baseline); none, with the reason logged, where the library is missing or refuses the problem. Its library
// ("cublasLt 13.1.0"), the first algorithm's time and the fastest's, with its rank.
std::optional<BaselineTiming> time_baseline(WorkerPool& pool, const EvalSettings& eval, std::uint64_t seed,
                                            int candidates = 8);

}  // namespace evotune
