// Which stored winner serves a problem: the exact tuned problem's, else the nearest tuned problem's with the
// same compile-time sizes (log-space distance, shape_transfer's), else a robust default. What a dispatching
// export bakes in, and what bench-dispatch measures on recorded sweeps.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"

namespace evotune {

// A tuned problem and the ok median times (us) of the configs measured at it.
struct TunedProblem {
  Sizes problem;
  std::vector<std::pair<Config, double>> times;
};

enum class DispatchRule { exact, nearest, fallback };
const char* to_string(DispatchRule rule);

struct DispatchChoice {
  DispatchRule rule = DispatchRule::exact;
  Config config;
  Sizes from;  // the tuned problem whose winner it is (fallback: none)
};

class DispatchTable {
 public:
  // `compile_time_sizes`: the sizes a variant is compiled for (D, CAUSAL): a problem is only served by
  // configs tuned at the same values. Problems with no ok time are left out.
  DispatchTable(std::vector<std::string> compile_time_sizes, std::vector<TunedProblem> tuned);

  // The config for `problem`: the exact tuned problem's winner; else the winner of the nearest tuned problem
  // with the same compile-time sizes that `runs` accepts (ties: the earlier problem); else the robust default
  // of those problems if `runs` accepts it. nullopt: no tuned problem has these compile-time sizes, or
  // nothing found runs.
  std::optional<DispatchChoice> pick(const Sizes& problem,
                                     const std::function<bool(const Config&)>& runs) const;

  // Among the winners of the tuned problems with `problem`'s compile-time sizes that `runs` accepts and that
  // were measured at every one of those problems: the one with the least geometric-mean slowdown against
  // each problem's best. None measured everywhere: the winner of the most central of those problems, if it
  // runs.
  std::optional<Config> robust_default(const Sizes& problem,
                                       const std::function<bool(const Config&)>& runs) const;
  // What robust_default tries, in order, before asking `runs`: indices into problem_winners() of the winners
  // measured at every problem of `problem`'s compile-time sizes, least geometric-mean slowdown first (ties:
  // the earlier problem), then the most central problem's winner. Empty when no tuned problem has these
  // compile-time sizes. An export bakes this in and asks its own `runs` at run time.
  std::vector<std::size_t> default_order(const Sizes& problem) const;
  // Indices into problem_winners() of the tuned problems with `problem`'s compile-time sizes, in order.
  std::vector<std::size_t> same_kind(const Sizes& problem) const;

  // Every distinct winner, in the order of the tuned problems.
  std::vector<Config> winners() const;
  // Each tuned problem's winner, in order.
  const std::vector<std::pair<Sizes, Config>>& problem_winners() const { return winners_; }

 private:
  std::vector<std::string> compile_time_;
  std::vector<TunedProblem> tuned_;
  std::vector<std::pair<Sizes, Config>> winners_;  // parallel to tuned_
};

}  // namespace evotune
