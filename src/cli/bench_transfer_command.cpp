// `evotune bench-transfer SPACE --replay A --replay B ...`: evaluations to get near each recorded problem's
// best, cold against seeded with the nearest other problems' best configs. Needs no GPU, database or
// compiler.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/transfer_bench.hpp"
#include "cli/commands.hpp"
#include "cli/evaluation_count.hpp"
#include "cli/number_checks.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune::cli {
namespace {

using json = nlohmann::ordered_json;

struct TransferCommandOptions {
  std::string space_file;
  std::vector<std::string> replays;
  int seeds = 20;
  std::vector<std::string> strategies{"evolve", "anneal"};
  int in_flight = 16;
  double within = 0.02;
  bool json = false;
};

// transfer / cold of the medians; nullopt where either never got there.
std::optional<double> ratio(const ThresholdStats& cold, const ThresholdStats& transfer) {
  if (!cold.median || !transfer.median || *cold.median <= 0) return std::nullopt;
  return *transfer.median / *cold.median;
}

json stats_json(const ThresholdStats& stats) {
  auto value = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"within", stats.threshold},
          {"reached", stats.reached},
          {"q1", value(stats.q1)},
          {"median", value(stats.median)},
          {"q3", value(stats.q3)}};
}

void run(const TransferCommandOptions& command) {
  const SearchSpace space = SearchSpace::load(command.space_file);
  std::vector<RecordedSweep> sweeps;
  for (const auto& file : command.replays) sweeps.push_back(load_sweep(file));
  TransferOptions options;
  options.strategies = command.strategies;
  options.seeds = command.seeds;
  options.in_flight = static_cast<std::size_t>(command.in_flight);
  options.thresholds = {command.within};
  const std::vector<TransferRow> rows = bench_transfer(space, sweeps, options);
  if (command.json) {
    json out = json::array();
    for (const auto& row : rows) {
      json problem = json::object();
      for (const auto& [name, value] : row.problem) problem[name] = value;
      const auto r = ratio(row.cold[0], row.transfer[0]);
      out.push_back({{"problem", problem},
                     {"strategy", row.strategy},
                     {"valid_configs", row.valid_configs},
                     {"best_us", row.best_us},
                     {"transferred", row.transferred},
                     {"seeds", command.seeds},
                     {"cold", stats_json(row.cold[0])},
                     {"transfer", stats_json(row.transfer[0])},
                     {"transfer_over_cold", r ? json(*r) : json(nullptr)}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf(
      "%s (%s), %zu sweeps on %s; %d seeds; evaluations until the best so far is within %g%% of the "
      "problem's best, median over the seeds (q1..q3), cold against seeded with the best configs of the "
      "2 nearest other problems\n\n",
      space.name().c_str(), space.hash().c_str(), sweeps.size(), sweeps[0].device.name.c_str(), command.seeds,
      command.within * 100);
  std::printf("%-40s %6s %-8s %5s %18s %18s %9s\n", "problem", "valid", "strategy", "seed", "cold",
              "transfer", "t/c");
  for (const auto& row : rows) {
    auto cell = [](const ThresholdStats& s) {
      return count_text(s.median) + " (" + count_text(s.q1) + ".." + count_text(s.q3) + ")";
    };
    const auto r = ratio(row.cold[0], row.transfer[0]);
    char ratio_text[16] = "-";
    if (r) std::snprintf(ratio_text, sizeof ratio_text, "%.2f", *r);
    std::printf("%-40s %6lld %-8s %5zu %18s %18s %9s\n", key_value_text(row.problem).c_str(),
                static_cast<long long>(row.valid_configs), row.strategy.c_str(), row.transferred,
                cell(row.cold[0]).c_str(), cell(row.transfer[0]).c_str(), ratio_text);
  }
  std::printf(
      "\nseed: configs seeded from the other problems (valid here); t/c: transfer median / cold median "
      "(below 1: transfer saves evaluations); never: a quartile on seeds that did not get there\n");
}

}  // namespace

void add_bench_transfer_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench-transfer",
      "Replay strategies on recorded sweeps of several problems: evaluations to near each best, cold against "
      "seeded from the nearest other problems");
  auto options = std::make_shared<TransferCommandOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--replay", options->replays, "Sweep files written by `evotune record` (two or more)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--seeds", options->seeds, "Seeds 1..N per strategy")
      ->capture_default_str()
      ->check(positive());
  command->add_option("--strategies", options->strategies, "Comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--in-flight", options->in_flight, "Proposals taken before the oldest is observed")
      ->capture_default_str()
      ->check(positive());
  command->add_option("--within", options->within, "How near the best counts as reached (0.02: 2%)")
      ->capture_default_str()
      ->check(in_range(0.0, 1.0));
  command->add_flag("--json", options->json, "Print a JSON array instead of the table");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
