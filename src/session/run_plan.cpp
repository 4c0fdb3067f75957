// A run's plan: store keys, the strategy's starting knowledge (candidates, measured configs, history),
// budget.
#include "session/run_plan.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "space/shape_transfer.hpp"
#include "strategy/known_configs.hpp"
#include "strategy/strategy_table.hpp"

namespace evotune {
namespace {

// A learning strategy starts from the 8 fastest configs of each of the 2 nearest problems tuned before.
constexpr std::size_t kTransferProblems = 2;
constexpr std::size_t kTransferConfigsEach = 8;

std::map<std::string, std::vector<ParamValue>> parameter_values(const SearchSpace& space) {
  std::map<std::string, std::vector<ParamValue>> values;
  for (const auto& parameter : space.parameters()) values[parameter.name] = parameter.values;
  return values;
}

// The stored results as the objective sees them: ok ones by their value, best first (those without what the
// objective needs, e.g. an energy, rank as failures), then the failures.
std::vector<PastResult> history(const Store& store, const RunKeys& keys, Objective objective) {
  std::vector<PastResult> past;
  const BestQuery everything{.space_id = keys.space_id,
                             .problem_id = keys.problem_id,
                             .device_id = keys.device_id,
                             .include_failed = true};
  for (const auto& result : store.best(everything))
    past.push_back({result.params, result.status,
                    result.status == Status::ok ? objective_value(objective, result.timing, result.energy)
                                                : std::nullopt});
  std::stable_sort(past.begin(), past.end(),
                   [](const PastResult& a, const PastResult& b) { return better(a.value, b.value); });
  return past;
}

}  // namespace

RunPlan plan_run(const TuneOptions& options, const SearchSpace& space, const Sizes& sizes,
                 const TuneTarget& target, Store& store, std::vector<Config> candidates) {
  RunPlan plan;
  plan.arch = target.device().arch() + space.arch_suffix();
  plan.keys.space_id =
      store.upsert_space(space.name(), space.path().string(), space.hash(), space.json_text());
  plan.keys.problem_id = store.upsert_problem(sizes);
  plan.keys.device_id = store.upsert_device(target.device(), target.nvrtc_version());

  StrategyInput input;
  input.candidates = std::move(candidates);
  input.parameter_values = parameter_values(space);
  input.seed = options.seed;
  input.patience = options.patience;
  input.already_measured =
      store.measured_configs(plan.keys.space_id, plan.keys.problem_id, plan.keys.device_id);
  input.objective = options.objective;
  input.history = history(store, plan.keys, options.objective);
  input.seeds = space.seeds_for(sizes);  // the seeds found for the nearest problems first
  input.transferred = transfer_configs(store.ok_times_by_problem(plan.keys.space_id, plan.keys.device_id),
                                       sizes, kTransferProblems, kTransferConfigsEach);
  // The nearby problems' best configs this problem admits join a drawn sample (the Seeds are in it).
  space.add_valid(input.candidates, input.transferred, sizes, target.device());

  plan.candidates = static_cast<std::int64_t>(input.candidates.size());
  for (const auto& config : input.candidates)
    if (input.already_measured.contains(canonical_json(config))) ++plan.skipped;
  plan.budget = options.budget.value_or(space.default_budget().value_or(plan.remaining()));
  if (plan.budget <= 0 && options.budget) throw Error("--budget must be positive");
  plan.strategy = make_strategy(options.strategy, std::move(input));
  return plan;
}

}  // namespace evotune
