// Which stored winner serves a problem: the exact tuned problem's, else the nearest tuned problem's with the
// same compile-time sizes (log-space distance, shape_transfer's), else a robust default, else a cover (a
// config measured beside a winner, kept for sizes where no winner runs). What a dispatching export bakes in,
// and what bench-dispatch measures on recorded sweeps.
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
  // of those problems if `runs` accepts it; else the first of their covers that `runs` accepts (rule
  // fallback, as the default). nullopt: no tuned problem has these compile-time sizes, or nothing found runs.
  std::optional<DispatchChoice> pick(const Sizes& problem,
                                     const std::function<bool(const Config&)>& runs) const;

  // Among the winners of the tuned problems with `problem`'s compile-time sizes that `runs` accepts and that
  // were measured at every one of those problems: the one with the least geometric-mean slowdown against
  // each problem's best. None measured everywhere: the winner of the most central of those problems, if it
  // runs. None of them: the first of cover_order's covers that runs.
  std::optional<Config> robust_default(const Sizes& problem,
                                       const std::function<bool(const Config&)>& runs) const;
  // What robust_default tries, in order, before asking `runs`: indices into problem_winners() of the winners
  // measured at every problem of `problem`'s compile-time sizes, least geometric-mean slowdown first (ties:
  // the earlier problem), then the most central problem's winner. Empty when no tuned problem has these
  // compile-time sizes. An export bakes this in and asks its own `runs` at run time.
  std::vector<std::size_t> default_order(const Sizes& problem) const;
  // Indices into problem_winners() of the tuned problems with `problem`'s compile-time sizes, in order.
  std::vector<std::size_t> same_kind(const Sizes& problem) const;

  // Indices into covers() of the covers with `problem`'s compile-time sizes, in the order they were added:
  // what pick tries after the robust default.
  std::vector<std::size_t> cover_order(const Sizes& problem) const;

  // Every distinct winner, in the order of the tuned problems.
  std::vector<Config> winners() const;
  // Each tuned problem's winner, in order.
  const std::vector<std::pair<Sizes, Config>>& problem_winners() const { return winners_; }
  // The tuned problems with their ok times, in order.
  const std::vector<TunedProblem>& tuned() const { return tuned_; }

  // A cover: `config`, measured ok at the tuned problem `problem` (one of tuned()'s), kept for sizes of its
  // compile-time sizes where no winner runs (export/neighbour_covers.hpp chooses them). Throws Error when
  // `problem` is not tuned or `config` has no ok time there; a cover already held is not added twice.
  void add_cover(const Sizes& problem, const Config& config);
  // The covers, in the order they were added: (the tuned problem it was measured at, config).
  const std::vector<std::pair<Sizes, Config>>& covers() const { return covers_; }

 private:
  std::vector<std::string> compile_time_;
  std::vector<TunedProblem> tuned_;
  std::vector<std::pair<Sizes, Config>> winners_;  // parallel to tuned_
  std::vector<std::pair<Sizes, Config>> covers_;
  bool same_compile_time_sizes(const Sizes& a, const Sizes& b) const;  // every compile-time size alike
};

}  // namespace evotune
