// Printing ranked results: a table for people, JSON for scripts.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "store/store.hpp"

namespace evotune::cli {

// The table, in the given order: a re-measured config's median and spread come from its rerank (marked r),
// and ~ marks the configs within noise of the winner (store/noise_band.hpp).
void print_result_table(const std::vector<RankedResult>& results, std::FILE* out);
// An array, best first, of {config_id, params, time_us (median), time_min_us, time_p20_us, time_p80_us,
// time_stddev_us, samples, timing_mode ("single", "graph"; null when not stored), graph_executions, flush_l2,
// timing_fallback (only when a graph fell back), remeasured (the config's rerank: position, median_us,
// min_us, max_us, rounds, round_medians_us; null without one), within_noise (its spread overlaps the
// winner's, the first ok result's), tflops, gbps, status, message, device, registers, energy
// (uj_per_execution, avg_power_w, window_ms, executions; null where not measured)}.
nlohmann::json results_json(const std::vector<RankedResult>& results);

}  // namespace evotune::cli
