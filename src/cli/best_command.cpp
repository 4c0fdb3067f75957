// `evotune best SPACE`: the fastest stored configs of this space version and problem. Needs no GPU.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/result_table.hpp"
#include "cli/stored_space.hpp"

namespace evotune::cli {
namespace {

struct BestOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  int top = 10;
  bool json = false;
  bool failed = false;
};

void run(const BestOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  const auto results = stored.best(options.top, options.failed);
  if (options.json) {
    std::printf("%s\n", results_json(results).dump(2).c_str());
    return;
  }
  std::printf("%s (%s), problem %s\n", stored.space.name().c_str(), stored.space.hash().c_str(),
              key_value_text(stored.sizes).c_str());
  print_result_table(results, stdout);
}

}  // namespace

void add_best_command(CLI::App& app) {
  auto* command = app.add_subcommand("best", "List the fastest stored configs of a space for a problem");
  auto options = std::make_shared<BestOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--top", options->top, "How many")->capture_default_str()->check(CLI::PositiveNumber);
  command->add_flag("--json", options->json, "Print a JSON array, best first");
  command->add_flag("--failed", options->failed, "Also list failed variants, after the working ones");
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
