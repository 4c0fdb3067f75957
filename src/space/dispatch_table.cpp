// The dispatch rule: exact, nearest of the same compile-time sizes, robust default.
#include "space/dispatch_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "space/shape_transfer.hpp"

namespace evotune {
namespace {

std::optional<double> time_of(const TunedProblem& tuned, const Config& config) {
  for (const auto& [measured, us] : tuned.times)
    if (measured == config) return us;
  return std::nullopt;
}

double best_time(const TunedProblem& tuned) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& entry : tuned.times) best = std::min(best, entry.second);
  return best;
}

}  // namespace

const char* to_string(DispatchRule rule) {
  switch (rule) {
    case DispatchRule::exact:
      return "exact";
    case DispatchRule::nearest:
      return "nearest";
    case DispatchRule::fallback:
      return "default";
  }
  return "?";
}

DispatchTable::DispatchTable(std::vector<std::string> compile_time_sizes, std::vector<TunedProblem> tuned)
    : compile_time_(std::move(compile_time_sizes)) {
  for (TunedProblem& problem : tuned) {
    if (problem.times.empty()) continue;
    const auto fastest = std::min_element(problem.times.begin(), problem.times.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    winners_.emplace_back(problem.problem, fastest->first);
    tuned_.push_back(std::move(problem));
  }
}

bool DispatchTable::same_compile_time_sizes(const Sizes& a, const Sizes& b) const {
  return std::all_of(compile_time_.begin(), compile_time_.end(), [&](const std::string& name) {
    const auto in_a = a.find(name);
    const auto in_b = b.find(name);
    return (in_a == a.end()) == (in_b == b.end()) && (in_a == a.end() || in_a->second == in_b->second);
  });
}

std::vector<std::size_t> DispatchTable::same_kind(const Sizes& problem) const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < tuned_.size(); ++i)
    if (same_compile_time_sizes(problem, tuned_[i].problem)) indices.push_back(i);
  return indices;
}

std::vector<std::size_t> DispatchTable::cover_order(const Sizes& problem) const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < covers_.size(); ++i)
    if (same_compile_time_sizes(problem, covers_[i].first)) indices.push_back(i);
  return indices;
}

void DispatchTable::add_cover(const Sizes& problem, const Config& config) {
  const auto tuned = std::find_if(tuned_.begin(), tuned_.end(),
                                  [&](const TunedProblem& entry) { return entry.problem == problem; });
  if (tuned == tuned_.end() || !time_of(*tuned, config))
    throw Error("a dispatch cover must be a config measured ok at a tuned problem");
  const std::pair<Sizes, Config> cover{problem, config};
  if (std::find(covers_.begin(), covers_.end(), cover) == covers_.end()) covers_.push_back(cover);
}

std::optional<DispatchChoice> DispatchTable::pick(const Sizes& problem,
                                                  const std::function<bool(const Config&)>& runs) const {
  std::vector<std::size_t> candidates = same_kind(problem);
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    return problem_distance(tuned_[a].problem, problem) < problem_distance(tuned_[b].problem, problem);
  });
  for (const std::size_t i : candidates) {
    if (!runs(winners_[i].second)) continue;
    const DispatchRule rule = tuned_[i].problem == problem ? DispatchRule::exact : DispatchRule::nearest;
    return DispatchChoice{rule, winners_[i].second, tuned_[i].problem};
  }
  if (auto fallback = robust_default(problem, runs))
    return DispatchChoice{DispatchRule::fallback, *fallback, {}};
  return std::nullopt;
}

std::optional<Config> DispatchTable::robust_default(const Sizes& problem,
                                                    const std::function<bool(const Config&)>& runs) const {
  for (const std::size_t w : default_order(problem))
    if (runs(winners_[w].second)) return winners_[w].second;
  for (const std::size_t c : cover_order(problem))
    if (runs(covers_[c].second)) return covers_[c].second;
  return std::nullopt;
}

std::vector<std::size_t> DispatchTable::default_order(const Sizes& problem) const {
  const std::vector<std::size_t> group = same_kind(problem);
  if (group.empty()) return {};
  std::vector<std::pair<double, std::size_t>> scored;  // (summed log slowdown, winner)
  for (const std::size_t w : group) {
    const Config& config = winners_[w].second;
    double log_sum = 0;
    bool everywhere = true;
    for (const std::size_t p : group) {
      const auto time = time_of(tuned_[p], config);
      if (!time) {
        everywhere = false;
        break;
      }
      log_sum += std::log(*time / best_time(tuned_[p]));
    }
    if (everywhere) scored.emplace_back(log_sum, w);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> order;
  for (const auto& entry : scored) order.push_back(entry.second);
  std::vector<Sizes> problems;
  for (const std::size_t p : group) problems.push_back(tuned_[p].problem);
  order.push_back(group[transfer_order(problems, {}).front()]);
  return order;
}

std::vector<Config> DispatchTable::winners() const {
  std::vector<Config> distinct;
  for (const auto& entry : winners_)
    if (std::find(distinct.begin(), distinct.end(), entry.second) == distinct.end())
      distinct.push_back(entry.second);
  return distinct;
}

}  // namespace evotune
