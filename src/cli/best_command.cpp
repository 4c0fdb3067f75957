// `evotune best SPACE`: the fastest stored configs of this space version and problem. Needs no GPU.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/result_table.hpp"
#include "cli/shape_table.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "core/objective.hpp"
#include "space/problem_list.hpp"
#include "space/search_space.hpp"
#include "strategy/known_configs.hpp"

namespace evotune::cli {
namespace {

struct BestOptions {
  std::string space_file;
  std::string problem;
  std::string problems_file;
  std::string db = kDefaultDb;
  int top = 10;
  bool json = false;
  bool failed = false;
  Objective objective = Objective::time;
};

// Ranked by another objective than time: by its value, those without one (no energy measured) after, in
// their time order; failures stay last.
std::vector<RankedResult> ranked_by(std::vector<RankedResult> results, Objective objective) {
  if (objective == Objective::time) return results;
  const auto value = [objective](const RankedResult& r) {
    return r.status == Status::ok ? objective_value(objective, r.timing, r.energy) : std::nullopt;
  };
  std::stable_sort(results.begin(), results.end(),
                   [&](const RankedResult& a, const RankedResult& b) { return better(value(a), value(b)); });
  return results;
}

// Several problems: a table of problem by config, the columns each problem's fastest config.
void run_problems(const BestOptions& options, const std::vector<std::string>& problems) {
  const SearchSpace space = SearchSpace::load(options.space_file);
  const std::vector<Sizes> sizes = resolve_problems(space, problems, options.problems_file);
  const Store store = Store::open_existing(options.db);
  const std::int64_t space_id = stored_space_id(space, store, options.space_file, options.db);
  const ShapeTable table = shape_table(store.ok_times_by_problem(space_id), sizes);
  if (options.json) {
    std::printf("%s\n", shape_table_json(table).dump(2).c_str());
    return;
  }
  std::printf("%s (%s), %zu problems, median us over every device; * the problem's fastest\n",
              space.name().c_str(), space.hash().c_str(), sizes.size());
  print_shape_table(table, stdout);
}

void run(const BestOptions& options) {
  const std::vector<std::string> problems = problem_list(options.problem, options.problems_file);
  if (problems.size() > 1 || !options.problems_file.empty()) return run_problems(options, problems);
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  auto results = stored.best(
      {.top_k = options.objective == Objective::time ? options.top : 0, .include_failed = options.failed});
  results = ranked_by(std::move(results), options.objective);
  if (results.size() > static_cast<std::size_t>(options.top))
    results.resize(static_cast<std::size_t>(options.top));
  if (options.json) {
    nlohmann::json json = results_json(results);
    // The library baseline timed on the result's GPU kind for this problem: baseline_us (its best algorithm,
    // re-timed in the rerank's rounds where the config was too), baseline_heuristic_us (its first), and ours
    // over it.
    // One query per GPU kind, not per result.
    std::map<std::string, std::optional<BaselineTiming>> baselines;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!stored.space_id || !stored.problem_id || results[i].status != Status::ok) continue;
      auto [found, fresh] = baselines.try_emplace(results[i].device_name);
      if (fresh)
        found->second =
            stored.store.latest_baseline(*stored.space_id, *stored.problem_id, results[i].device_name);
      const std::optional<BaselineTiming>& baseline = found->second;
      if (!baseline) continue;
      const RankedResult& r = results[i];
      const double ours = r.reported_us();
      const double theirs = comparable_us(*baseline, r.remeasured.has_value());
      json[i]["baseline"] = baseline->library;
      json[i]["baseline_us"] = theirs;
      json[i]["baseline_heuristic_us"] = baseline->heuristic_us;
      json[i]["vs_baseline"] = ours / theirs;
    }
    std::printf("%s\n", json.dump(2).c_str());
    return;
  }
  std::printf("%s (%s), problem %s%s\n", stored.space.name().c_str(), stored.space.hash().c_str(),
              key_value_text(stored.sizes).c_str(),
              options.objective == Objective::time
                  ? ""
                  : (std::string(", ranked by ") + to_string(options.objective) + " (" +
                     objective_unit(options.objective) + ")")
                        .c_str());
  print_result_table(results, stdout);
}

}  // namespace

void add_best_command(CLI::App& app) {
  auto* command = app.add_subcommand("best", "List the fastest stored configs of a space for a problem");
  auto options = std::make_shared<BestOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option(
      "--problem", options->problem,
      "Problem sizes (default: the space's); ranges and lists (S=512..8192:x2, B=1,8) print a "
      "table of problem by config");
  command->add_option("--problems", options->problems_file, "File of problems: a table of problem by config")
      ->check(CLI::ExistingFile);
  command->add_option("--top", options->top, "How many")->capture_default_str()->check(positive());
  command->add_flag("--json", options->json, "Print a JSON array, best first");
  command->add_flag("--failed", options->failed, "Also list failed variants, after the working ones");
  command
      ->add_option_function<std::string>(
          "--objective",
          [options](const std::string& value) { options->objective = *objective_from_string(value); },
          "Rank by time (default), energy per execution or edp (energy x time); configs without a measured "
          "energy come after those with one")
      ->check(CLI::IsMember({"time", "energy", "edp"}));
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
