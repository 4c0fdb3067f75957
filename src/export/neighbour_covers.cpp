// Covers for the sizes next to the tuned problems: where no winner runs, the fastest measured config that
// does.
#include "export/neighbour_covers.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evotune {
namespace {

// Whether the space's conditions accept `config` at `sizes` on `device`; a condition that cannot be
// evaluated there (a division by a size of 1, say) counts as a refusal, as the exported check's would.
bool runs_at(const SearchSpace& space, const Config& config, const Sizes& sizes, const DeviceInfo& device) {
  try {
    return space.check(config, space.complete_problem(sizes), device).valid;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::vector<Sizes> neighbour_problems(const SearchSpace& space, const Sizes& tuned) {
  std::vector<Sizes> neighbours;
  auto add = [&](const Sizes& sizes) {
    if (sizes != tuned && std::find(neighbours.begin(), neighbours.end(), sizes) == neighbours.end())
      neighbours.push_back(sizes);
  };
  for (const auto& size : space.sizes()) {
    const auto value = tuned.find(size.name);
    if (size.compile_time || value == tuned.end()) continue;
    for (const std::int64_t changed : {value->second - 1, value->second + 1, std::int64_t{1}}) {
      if (changed < 1) continue;
      Sizes next = tuned;
      next[size.name] = changed;
      add(next);
    }
  }
  for (const Sizes& extra : space.extra_problems(tuned)) add(extra);
  return neighbours;
}

std::size_t add_neighbour_covers(const SearchSpace& space, DispatchTable& table, const DeviceInfo& device,
                                 std::size_t per_kind) {
  std::size_t added = 0;
  for (const TunedProblem& problem : table.tuned()) {  // add_cover appends to the covers alone
    std::vector<std::pair<Config, double>> fastest_first = problem.times;
    std::stable_sort(fastest_first.begin(), fastest_first.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const Sizes& neighbour : neighbour_problems(space, problem.problem)) {
      if (table.cover_order(neighbour).size() >= per_kind) break;
      const auto runs = [&](const Config& config) { return runs_at(space, config, neighbour, device); };
      if (table.pick(neighbour, runs)) continue;
      const auto serving = std::find_if(fastest_first.begin(), fastest_first.end(),
                                        [&](const auto& entry) { return runs(entry.first); });
      if (serving == fastest_first.end()) continue;
      table.add_cover(problem.problem, serving->first);
      ++added;
    }
  }
  return added;
}

}  // namespace evotune
