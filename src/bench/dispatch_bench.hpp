// Dispatch benchmark: on recorded sweeps of one space at several problems, leave each problem out, pick its
// config with the dispatch rule from the others (dispatch_table), and compare that config's recorded time
// with the problem's own best.
#pragma once

#include <optional>
#include <vector>

#include "replay/recorded_sweep.hpp"
#include "space/dispatch_table.hpp"
#include "space/search_space.hpp"

namespace evotune {

struct DispatchBenchRow {
  Sizes problem;
  double best_us = 0;
  std::optional<DispatchChoice> choice;  // nullopt: no other problem has its compile-time sizes
  std::optional<double> chosen_us;       // the chosen config's recorded ok time here; nullopt: not ok here
  // chosen / best; nullopt when there is no choice or it failed here.
  std::optional<double> slowdown() const {
    return chosen_us ? std::optional<double>(*chosen_us / best_us) : std::nullopt;
  }
};

// The space's tuned-problem view of a sweep: its ok results' median times.
TunedProblem tuned_problem(const RecordedSweep& sweep);

// One row per sweep, in order. Throws Error for fewer than two sweeps, a sweep of another space or two of
// one problem, or a sweep with no ok valid config.
std::vector<DispatchBenchRow> bench_dispatch(const SearchSpace& space,
                                             const std::vector<RecordedSweep>& sweeps);

}  // namespace evotune
