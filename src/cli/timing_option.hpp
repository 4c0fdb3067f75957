// The timing options of the commands that time variants (tune, eval, remeasure), registered in one place:
// --warmup, --warmup-ms, --flush-l2, --timing (with the rule of its default), --reps and --timeout-ms.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/eval_settings.hpp"

namespace evotune::cli {

// The help text: each mode, how G is chosen, and what auto decides by.
std::string timing_help();

// Adds the timing options to `command`, writing into *eval (which must outlive the app).
void add_timing_options(CLI::App& command, EvalSettings* eval);

}  // namespace evotune::cli
