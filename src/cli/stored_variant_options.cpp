#include "cli/stored_variant_options.hpp"

#include "cli/number_checks.hpp"

namespace evotune::cli {

void add_stored_variant_options(CLI::App& command, StoredVariantOptions& options,
                                const std::string& limit_help) {
  command.add_option("space", options.space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command.add_option("--config", options.config_id, "Config id (from `evotune best`)")->required();
  command.add_option("--problem", options.problem, "Problem sizes (default: the space's)");
  command.add_option("--device", options.device, "GPU ordinal")->capture_default_str();
  command.add_option("--limit-s", options.limit_s, limit_help)->capture_default_str()->check(positive());
  command.add_option("--db", options.db, "Results database")->capture_default_str();
}

VariantEval stored_variant_eval(const StoredVariantOptions& options, const StoredSpace& stored) {
  VariantEval variant;
  variant.space_file = options.space_file;
  variant.problem = key_value_text(stored.sizes);
  variant.params = stored_config_params(stored, options.config_id, options.space_file, options.db);
  variant.device = options.device;
  variant.evotune = self_path();
  return variant;
}

}  // namespace evotune::cli
