// Leave-one-out dispatch over recorded sweeps.
#include "bench/dispatch_bench.hpp"

#include <algorithm>

#include "bench/strategy_bench.hpp"
#include "core/error.hpp"
#include "replay/sweep_match.hpp"

namespace evotune {

TunedProblem tuned_problem(const RecordedSweep& sweep) {
  TunedProblem tuned{sweep.problem, {}};
  for (const RecordedResult& result : sweep.results)
    if (result.status == Status::ok && result.timing)
      tuned.times.emplace_back(result.params, result.timing->median_us);
  return tuned;
}

std::vector<DispatchBenchRow> bench_dispatch(const SearchSpace& space,
                                             const std::vector<RecordedSweep>& sweeps) {
  if (sweeps.size() < 2) throw Error("the dispatch benchmark needs sweeps of at least two problems");
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    check_sweep_matches(sweeps[i], "sweep " + std::to_string(i + 1), space.name(), space.hash(), nullptr);
    for (std::size_t j = 0; j < i; ++j)
      if (sweeps[j].problem == sweeps[i].problem)
        throw Error("two sweeps of the problem " + key_value_text(sweeps[i].problem));
  }
  std::vector<std::string> compile_time;
  for (const auto& size : space.sizes())
    if (size.compile_time) compile_time.push_back(size.name);

  std::vector<DispatchBenchRow> rows;
  for (std::size_t target = 0; target < sweeps.size(); ++target) {
    const RecordedSweep& sweep = sweeps[target];
    const std::vector<Config> valid = sweep_strategy_input(space, sweep).candidates;
    const TunedProblem here = tuned_problem(sweep);
    DispatchBenchRow& row = rows.emplace_back();
    row.problem = sweep.problem;
    bool any = false;
    for (const auto& [config, us] : here.times)
      if (std::find(valid.begin(), valid.end(), config) != valid.end() && (!any || us < row.best_us)) {
        row.best_us = us;
        any = true;
      }
    if (!any) throw Error("the sweep of " + key_value_text(sweep.problem) + " has no ok valid config");
    std::vector<TunedProblem> others;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
      if (i != target) others.push_back(tuned_problem(sweeps[i]));
    const DispatchTable table(compile_time, std::move(others));
    row.choice = table.pick(sweep.problem, [&valid](const Config& config) {
      return std::find(valid.begin(), valid.end(), config) != valid.end();
    });
    if (!row.choice) continue;
    for (const auto& [config, us] : here.times)
      if (config == row.choice->config) row.chosen_us = us;
  }
  return rows;
}

}  // namespace evotune
