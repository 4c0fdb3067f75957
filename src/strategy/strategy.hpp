// Strategy: picks the next config to evaluate. Never sees CUDA; learns only through its input and observe().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/objective.hpp"
#include "core/outcome.hpp"

namespace evotune {

// One stored result of an earlier run (same space, problem and device), as a learning strategy sees it.
struct PastResult {
  Config config;
  Status status = Status::ok;
  std::optional<double> value;  // the objective's value (StrategyInput::objective), for ok results
};

// What every strategy starts from.
struct StrategyInput {
  std::vector<Config> candidates;  // the valid configs for this problem and device, in enumeration order
  // Each tuning parameter's values in the space file's order: neighbours are adjacent entries.
  std::map<std::string, std::vector<ParamValue>> parameter_values{};
  // canonical_json of configs measured before: never proposed again.
  std::set<std::string> already_measured{};
  std::vector<PastResult> history{};  // those earlier results, ok ones best first, then failures
  // The best configs of the nearest other problems tuned before, best first: where a learning strategy
  // starts its search (transfer across shapes). Their times are not comparable here, so only the configs.
  std::vector<Config> transferred{};
  // The space file's Seeds: known-good configs (the anchors a template was written after) that open a
  // learning strategy's search before the configs of nearby problems.
  std::vector<Config> seeds{};
  std::uint64_t seed = 0;
  int patience = 0;  // generations without improvement before a learning strategy stops; 0: its default
  Objective objective = Objective::time;  // what observe() reads of an outcome (objective_value())
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The next config to evaluate. nullopt: nothing to propose until the outcomes of earlier proposals are
  // observed; when none is still in flight, the search is over. Never proposes a config twice, nor one
  // already measured.
  virtual std::optional<Config> next() = 0;
  // The outcome of a config this strategy proposed (any order, once each).
  virtual void observe(const Config& /*config*/, const Outcome& /*outcome*/) {}
  // A line for the log on how the search started (e.g. "seeded 8 of 20 from the database"); may be empty.
  virtual std::string describe_start() const { return {}; }
};

// The time objective of an outcome: the median time of an ok outcome; nullopt for a failure (worst).
std::optional<double> objective(const Outcome& outcome);

}  // namespace evotune
