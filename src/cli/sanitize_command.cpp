// `evotune sanitize SPACE --config ID`: a stored variant run under compute-sanitizer's tools; what each tool
// found is printed and kept in the database with the config.
#include <cstdio>
#include <limits>

#include "cli/commands.hpp"
#include "cli/sanitizer_table.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "tools/sanitize_variant.hpp"

namespace evotune::cli {
namespace {

struct SanitizeOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  long long config_id = 0;
  std::string tools;
  int device = 0;
  int limit_s = 600;
};

void run(const SanitizeOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  SanitizeRequest request;
  request.space_file = options.space_file;
  request.problem = key_value_text(stored.sizes);
  request.params = stored_config_params(stored, options.config_id, options.space_file, options.db);
  request.device = options.device;
  request.tools = parse_sanitizer_tools(options.tools);
  request.evotune = self_path();
  request.limit = std::chrono::seconds(options.limit_s);
  const SanitizeResult result = sanitize_and_store(request, options.config_id, options.db);
  std::printf("config %lld of %s, %s, on %s:\n", options.config_id, stored.space.name().c_str(),
              key_value_text(result.problem).c_str(), result.device.c_str());
  for (const auto& finding : result.findings) print_sanitizer_finding(finding, "  ", stdout);
  std::printf("kept in %s (evotune show %lld)\n", options.db.c_str(), options.config_id);
}

}  // namespace

void add_sanitize_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "sanitize", "Run a stored variant under compute-sanitizer (memcheck, racecheck, synccheck, initcheck)");
  auto options = std::make_shared<SanitizeOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--config", options->config_id, "Config id (from `evotune best`)")->required();
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--tools", options->tools, "Comma-separated tools (default: all four)");
  command->add_option("--device", options->device, "GPU ordinal")->capture_default_str();
  command->add_option("--limit-s", options->limit_s, "Wall-clock limit per tool, in seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
