// Problem distance, configs carried over from nearby problems, and a tuning order.
#include "space/shape_transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace evotune {

double problem_distance(const Sizes& a, const Sizes& b) {
  std::set<std::string> names;
  for (const auto& [name, value] : a) names.insert(name);
  for (const auto& [name, value] : b) names.insert(name);
  double sum = 0;
  for (const auto& name : names) {
    const auto x = a.find(name), y = b.find(name);
    if (x == a.end() || y == b.end()) {
      sum += 1;
    } else if (x->second > 0 && y->second > 0) {
      const double gap =
          std::log2(static_cast<double>(x->second)) - std::log2(static_cast<double>(y->second));
      sum += gap * gap;
    } else if (x->second != y->second) {
      sum += 1;
    }
  }
  return std::sqrt(sum);
}

std::vector<Config> transfer_configs(const std::vector<ProblemTime>& times, const Sizes& target,
                                     std::size_t problems, std::size_t per_problem) {
  std::vector<Sizes> order;  // distinct problems in their first appearance
  std::map<Sizes, std::vector<const ProblemTime*>> by_problem;
  for (const ProblemTime& time : times) {
    if (time.problem == target) continue;
    auto& list = by_problem[time.problem];
    if (list.empty()) order.push_back(time.problem);
    list.push_back(&time);
  }
  std::stable_sort(order.begin(), order.end(), [&](const Sizes& x, const Sizes& y) {
    return problem_distance(x, target) < problem_distance(y, target);
  });
  if (order.size() > problems) order.resize(problems);
  std::vector<Config> configs;
  for (const Sizes& problem : order) {
    auto list = by_problem[problem];
    std::stable_sort(list.begin(), list.end(),
                     [](const ProblemTime* x, const ProblemTime* y) { return x->median_us < y->median_us; });
    std::size_t taken = 0;
    for (const ProblemTime* time : list) {
      if (taken == per_problem) break;
      if (std::find(configs.begin(), configs.end(), time->params) != configs.end()) continue;
      configs.push_back(time->params);
      ++taken;
    }
  }
  return configs;
}

std::vector<std::size_t> transfer_order(const std::vector<Sizes>& problems, const std::vector<Sizes>& tuned) {
  std::vector<std::size_t> order;
  std::vector<bool> placed(problems.size(), false);
  std::vector<Sizes> known = tuned;
  while (order.size() < problems.size()) {
    std::size_t pick = problems.size();
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < problems.size(); ++i) {
      if (placed[i]) continue;
      double score = 0;
      if (known.empty()) {
        for (const Sizes& other : problems) score += problem_distance(problems[i], other);
      } else {
        score = std::numeric_limits<double>::infinity();
        for (const Sizes& other : known) score = std::min(score, problem_distance(problems[i], other));
      }
      if (pick == problems.size() || score < best) {
        pick = i;
        best = score;
      }
    }
    placed[pick] = true;
    order.push_back(pick);
    known.push_back(problems[pick]);
  }
  return order;
}

}  // namespace evotune
