// `evotune sanitize SPACE --config ID`: a stored variant run under compute-sanitizer's tools; what each tool
// found is printed and kept in the database with the config.
#include <cstdio>
#include <limits>

#include "cli/commands.hpp"
#include "cli/sanitizer_table.hpp"
#include "cli/stored_space.hpp"
#include "cli/stored_variant_options.hpp"
#include "core/error.hpp"
#include "tools/sanitize_variant.hpp"

namespace evotune::cli {
namespace {

struct SanitizeOptions : StoredVariantOptions {
  std::string tools;
};

void run(const SanitizeOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  SanitizeRequest request;
  static_cast<VariantEval&>(request) = stored_variant_eval(options, stored);
  request.tools = parse_sanitizer_tools(options.tools);
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
  options->limit_s = 600;
  add_stored_variant_options(*command, *options, "Wall-clock limit per tool, in seconds");
  command->add_option("--tools", options->tools, "Comma-separated tools (default: all four)");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
