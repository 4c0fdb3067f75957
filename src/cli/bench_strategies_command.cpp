// `evotune bench-strategies SPACE --replay FILE`: how many evaluations each strategy needs, over seeds, to
// get near the best of a recorded sweep. Needs no GPU, database or compiler.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/strategy_bench.hpp"
#include "cli/commands.hpp"
#include "cli/evaluation_count.hpp"
#include "cli/number_checks.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune::cli {
namespace {

using json = nlohmann::ordered_json;  // keys in the order written: the summary before the runs

struct BenchCommandOptions {
  std::string space_file;
  std::string replay;
  int seeds = 20;
  std::vector<std::string> strategies;
  long long budget = 0;
  int in_flight = 16;
  bool json = false;
};

double percent(double evaluations, std::int64_t valid) {
  return 100.0 * evaluations / static_cast<double>(valid);
}

std::string percent_text(const std::optional<double>& evaluations, std::int64_t valid) {
  if (!evaluations) return "never";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", percent(*evaluations, valid));
  return text;
}

json optional_json(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json report_json(const BenchReport& report, const SearchSpace& space, const RecordedSweep& sweep) {
  json strategies = json::array();
  for (const auto& bench : report.strategies) {
    json thresholds = json::array();
    for (const auto& stats : bench.stats) {
      auto pct = [&](const std::optional<double>& v) {
        return v ? json(percent(*v, report.valid_configs)) : json(nullptr);
      };
      thresholds.push_back({{"within", stats.threshold},
                            {"reached", stats.reached},
                            {"seeds", bench.runs.size()},
                            {"q1", optional_json(stats.q1)},
                            {"median", optional_json(stats.median)},
                            {"q3", optional_json(stats.q3)},
                            {"q1_pct", pct(stats.q1)},
                            {"median_pct", pct(stats.median)},
                            {"q3_pct", pct(stats.q3)}});
    }
    json runs = json::array();
    for (const auto& run : bench.runs) {
      json reached = json::array();
      for (const auto& r : run.reached) reached.push_back(r ? json(*r) : json(nullptr));
      runs.push_back({{"seed", run.seed}, {"evaluations", run.evaluations}, {"reached", reached}});
    }
    strategies.push_back({{"strategy", bench.strategy}, {"thresholds", thresholds}, {"runs", runs}});
  }
  json problem = json::object();
  for (const auto& [name, value] : sweep.problem) problem[name] = value;
  return {{"space", space.name()},
          {"space_hash", space.hash()},
          {"sweep_space_hash", sweep.space_hash},
          {"problem", problem},
          {"device", sweep.device.name},
          {"arch", sweep.device.arch()},
          {"valid_configs", report.valid_configs},
          {"unrecorded_configs", report.unrecorded},
          {"best_us", report.best_us},
          {"seeds", report.options.seeds},
          {"budget", report.budget},
          {"in_flight", report.options.in_flight},
          {"thresholds", report.options.thresholds},
          {"strategies", strategies}};
}

void print_table(const BenchReport& report, const SearchSpace& space, const RecordedSweep& sweep) {
  std::printf("%s (%s), problem %s, device %s (%s)\n", space.name().c_str(), space.hash().c_str(),
              key_value_text(sweep.problem).c_str(), sweep.device.name.c_str(), sweep.device.arch().c_str());
  std::printf("%lld valid configs, best %.4g us; %d seeds per strategy, budget %lld, up to %zu in flight\n",
              static_cast<long long>(report.valid_configs), report.best_us, report.options.seeds,
              static_cast<long long>(report.budget), report.options.in_flight);
  std::printf(
      "evaluations until the best so far is within x%% of the best, quartiles over the seeds (also as %% of "
      "the valid configs):\n\n");
  std::printf("%-12s %6s %8s %8s %8s %8s %9s %9s %9s\n", "strategy", "within", "reached", "q1", "median",
              "q3", "q1 %", "median %", "q3 %");
  for (const auto& bench : report.strategies)
    for (const auto& stats : bench.stats) {
      char within[16];
      std::snprintf(within, sizeof within, "%g%%", stats.threshold * 100);
      const std::string reached = std::to_string(stats.reached) + "/" + std::to_string(bench.runs.size());
      std::printf("%-12s %6s %8s %8s %8s %8s %9s %9s %9s\n", bench.strategy.c_str(), within, reached.c_str(),
                  count_text(stats.q1).c_str(), count_text(stats.median).c_str(),
                  count_text(stats.q3).c_str(), percent_text(stats.q1, report.valid_configs).c_str(),
                  percent_text(stats.median, report.valid_configs).c_str(),
                  percent_text(stats.q3, report.valid_configs).c_str());
    }
  std::printf(
      "\nreached: seeds that got within x%% of the best in the budget. A seed that did not counts as "
      "infinitely\nmany evaluations: a quartile that falls on such seeds reads \"never\".\n");
}

void run(const BenchCommandOptions& command) {
  const SearchSpace space = SearchSpace::load(command.space_file);
  const RecordedSweep sweep = load_sweep(command.replay);
  BenchOptions options;
  options.strategies = command.strategies;
  options.seeds = command.seeds;
  if (command.budget > 0) options.budget = command.budget;
  options.in_flight = static_cast<std::size_t>(command.in_flight);
  const BenchReport report = bench_strategies(space, sweep, options);
  if (command.json)
    std::printf("%s\n", report_json(report, space, sweep).dump(2).c_str());
  else
    print_table(report, space, sweep);
}

}  // namespace

void add_bench_strategies_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench-strategies", "Replay strategies against a recorded sweep: evaluations to reach near the best");
  auto options = std::make_shared<BenchCommandOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--replay", options->replay, "Sweep file written by `evotune record`")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--seeds", options->seeds, "Seeds 1..N per strategy")
      ->capture_default_str()
      ->check(positive());
  command->add_option("--strategies", options->strategies, "Comma-separated (default: all but exhaustive)")
      ->delimiter(',');
  command->add_option("--budget", options->budget, "Evaluations per run (default: every valid config)")
      ->check(positive());
  command->add_option("--in-flight", options->in_flight, "Proposals taken before the oldest is observed")
      ->capture_default_str()
      ->check(positive());
  command->add_flag("--json", options->json, "Print a JSON object instead of the table");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
