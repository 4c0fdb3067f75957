// Where a run's compile time went: how busy the compilers were and how long requests waited for one.
#pragma once

#include <cstdint>
#include <vector>

namespace evotune {

// One compiler (a persistent compiler process, or a thread of the tuning process).
struct CompilerLoad {
  std::int64_t compiles = 0;
  double busy_ms = 0;  // compiling: from handing it a request to its answer
  double idle_ms = 0;  // waiting for a request
};

// A compile service's figures since it started; busy and idle add up over the compilers, so that
// busy_ms + idle_ms is about compilers x the service's lifetime.
struct CompileStats {
  int compilers = 0;
  std::int64_t compiles = 0;  // requests answered, failures included
  double busy_ms = 0;
  double idle_ms = 0;
  double queue_wait_ms = 0;    // summed over requests: from submit until a compiler took it
  double queue_mean = 0;       // requests waiting for a compiler, averaged over the service's lifetime
  std::int64_t queue_max = 0;  // most requests waiting at once
  std::vector<CompilerLoad> per_compiler;  // empty when read back from the store
};

}  // namespace evotune
