// The options that name one stored variant for the tools run on it (sanitize, profile): the space file, the
// config id, the problem, the GPU, the database, and the wall-clock limit of the tool's run.
#pragma once

#include <string>

#include "cli/commands.hpp"
#include "cli/stored_space.hpp"
#include "tools/variant_eval_command.hpp"

namespace evotune::cli {

struct StoredVariantOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  long long config_id = 0;
  int device = 0;
  int limit_s = 600;  // the command sets its own default before adding the options
};

// SPACE, --config, --problem, --device, --limit-s (described by `limit_help`) and --db on `command`.
void add_stored_variant_options(CLI::App& command, StoredVariantOptions& options,
                                const std::string& limit_help);

// The variant as `evotune eval` names it: the space file, the resolved problem, the stored config's
// parameters (stored_config_params' one-line errors), the GPU and this binary.
VariantEval stored_variant_eval(const StoredVariantOptions& options, const StoredSpace& stored);

}  // namespace evotune::cli
