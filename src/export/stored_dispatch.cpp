// Stored ok times -> the tuned problems of a dispatch table.
#include "export/stored_dispatch.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evotune {

DispatchTable stored_dispatch_table(const SearchSpace& space, const Store& store, std::int64_t space_id) {
  std::vector<TunedProblem> tuned;
  for (const ProblemTime& time : store.ok_times_by_problem(space_id)) {
    auto it = std::find_if(tuned.begin(), tuned.end(),
                           [&](const TunedProblem& problem) { return problem.problem == time.problem; });
    if (it == tuned.end()) it = tuned.insert(tuned.end(), TunedProblem{time.problem, {}});
    it->times.emplace_back(time.params, time.median_us);
  }
  if (tuned.empty())
    throw Error("no stored problem of " + space.name() +
                " (this version) has a working variant: nothing to " +
                "dispatch (tune it at one or more problems first)");
  std::vector<std::string> compile_time;
  for (const auto& size : space.sizes())
    if (size.compile_time) compile_time.push_back(size.name);
  return DispatchTable(std::move(compile_time), std::move(tuned));
}

}  // namespace evotune
