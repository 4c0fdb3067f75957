// The pool job that evaluates one variant of a tuning run, for the search loop and the rerank alike.
#pragma once

#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "session/launch_timeout.hpp"
#include "session/run_context.hpp"
#include "space/search_space.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {

// The seed of a config's validation inputs in a run: the same config gets the same inputs on every resume.
std::uint64_t validation_seed(std::uint64_t run_seed, const Config& config);

// `config`'s job: its seed, `limit` per launch, the watchdog, and where `cubin` is given (null for a replay,
// which needs no binaries) the compiled kernel with its launches for the problem and each extra problem, and
// whether its outputs must repeat bit for bit (Validation.Deterministic for the config).
PoolJob variant_job(const RunContext& run, std::int64_t ticket, const Config& config,
                    const std::string* cubin, const LaunchLimit& limit);

}  // namespace evotune
