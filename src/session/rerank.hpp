// After a search: the fastest configs of the problem on the run's device re-timed in interleaved rounds
// (each round times every one of them once, in a rotating order, so a drift of the GPU's clocks or
// temperature touches all alike), their final order and spread stored (tune --rerank).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/baseline.hpp"
#include "session/run_context.hpp"
#include "store/store.hpp"

namespace evotune {

struct RerankOutcome {
  std::vector<RerankRecord> ranked;  // stored, fastest first; empty when fewer than two configs were timed
  bool interrupted = false;          // stopped by the interrupt: nothing stored
  int failed = 0;                    // re-timings that did not end ok (a config with none left is dropped)
};

// The order round `round` times `count` configs in: each once, starting at round mod count.
std::vector<std::size_t> round_order(std::size_t count, int round);

// One config's rounds: the median of the rounds' medians, the fastest and slowest round.
Remeasurement summarize_rounds(std::vector<double> round_medians_us);

// Re-times the `top_k` fastest ok configs (at least two, or nothing happens) `rounds` times each, on the
// pool's workers without validating them again, and stores the order. Polls `interrupt` between answers.
// Past `deadline`, no further round starts (every config keeps its finished rounds, at least one).
// Throws Error when the pool fails.
RerankOutcome rerank_top(const RunContext& context, int top_k, int rounds, const std::atomic<bool>* interrupt,
                         std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace evotune
