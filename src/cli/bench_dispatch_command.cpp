// `evotune bench-dispatch SPACE --replay A --replay B ...`: leave each recorded problem out, dispatch it from
// the others, and print the slowdown against its own best. Needs no GPU, database or compiler.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/dispatch_bench.hpp"
#include "cli/commands.hpp"

namespace evotune::cli {
namespace {

struct DispatchCommandOptions {
  std::string space_file;
  std::vector<std::string> replays;
  bool json = false;
};

void run(const DispatchCommandOptions& command) {
  const SearchSpace space = SearchSpace::load(command.space_file);
  std::vector<RecordedSweep> sweeps;
  for (const auto& file : command.replays) sweeps.push_back(load_sweep(file));
  const auto rows = bench_dispatch(space, sweeps);
  std::vector<double> slowdowns;
  int unserved = 0;
  for (const auto& row : rows) {
    if (const auto s = row.slowdown())
      slowdowns.push_back(*s);
    else
      ++unserved;
  }
  std::sort(slowdowns.begin(), slowdowns.end());
  const double median = slowdowns.empty() ? 0
                        : slowdowns.size() % 2
                            ? slowdowns[slowdowns.size() / 2]
                            : (slowdowns[slowdowns.size() / 2 - 1] + slowdowns[slowdowns.size() / 2]) / 2;
  const double worst = slowdowns.empty() ? 0 : slowdowns.back();
  if (command.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
      nlohmann::ordered_json problem = nlohmann::ordered_json::object();
      for (const auto& [name, value] : row.problem) problem[name] = value;
      nlohmann::ordered_json entry{{"problem", problem}, {"best_us", row.best_us}};
      if (row.choice) {
        nlohmann::ordered_json config = nlohmann::ordered_json::object();
        for (const auto& [name, value] : row.choice->config) config[name] = value;
        entry["rule"] = to_string(row.choice->rule);
        entry["from"] = key_value_text(row.choice->from);
        entry["config"] = config;
      }
      const auto s = row.slowdown();
      entry["chosen_us"] =
          row.chosen_us ? nlohmann::ordered_json(*row.chosen_us) : nlohmann::ordered_json(nullptr);
      entry["slowdown"] = s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr);
      out.push_back(entry);
    }
    std::printf("%s\n", nlohmann::ordered_json{{"space", space.name()},
                                               {"rows", out},
                                               {"median_slowdown", median},
                                               {"worst_slowdown", worst},
                                               {"unserved", unserved}}
                            .dump(2)
                            .c_str());
    return;
  }
  std::printf(
      "%s (%s), %zu sweeps on %s: each problem dispatched from the others (nearest tuned problem "
      "with the same compile-time sizes, else the robust default)\n\n",
      space.name().c_str(), space.hash().c_str(), sweeps.size(), sweeps[0].device.name.c_str());
  std::printf("%-40s %10s %-8s %-40s %10s %9s\n", "problem", "best us", "rule", "from", "chosen us",
              "slowdown");
  for (const auto& row : rows) {
    char chosen[32] = "failed";
    char slowdown[32] = "-";
    if (row.chosen_us) std::snprintf(chosen, sizeof chosen, "%.4g", *row.chosen_us);
    if (const auto s = row.slowdown()) std::snprintf(slowdown, sizeof slowdown, "%.3fx", *s);
    std::printf("%-40s %10.4g %-8s %-40s %10s %9s\n", key_value_text(row.problem).c_str(), row.best_us,
                row.choice ? to_string(row.choice->rule) : "none",
                row.choice ? key_value_text(row.choice->from).c_str() : "-", row.choice ? chosen : "-",
                slowdown);
  }
  std::printf(
      "\nslowdown: the chosen config's recorded time / the problem's best; median %.3fx, worst %.3fx over "
      "%zu "
      "served problems; %d not served (no other problem of their compile-time sizes, or the chosen "
      "config failed there)\n",
      median, worst, slowdowns.size(), unserved);
}

}  // namespace

void add_bench_dispatch_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench-dispatch",
      "Leave each recorded problem out, dispatch it from the others: slowdown against its best");
  auto options = std::make_shared<DispatchCommandOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--replay", options->replays, "Sweep files written by `evotune record` (two or more)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_flag("--json", options->json, "Print a JSON object instead of the table");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
