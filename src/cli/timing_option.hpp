// The timing options of the commands that time variants (tune, eval): --timing, with the rule of its default,
// and --warmup-ms.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/eval_settings.hpp"

namespace evotune::cli {

// The help text: each mode, how G is chosen, and what auto decides by.
std::string timing_help();

// Adds --timing single|graph|auto to `command`, writing the mode into *eval (which must outlive the app).
void add_timing_option(CLI::App& command, EvalSettings* eval);

// Adds --warmup-ms (the sustained warm-up before timing, EvalSettings::warmup_ms) to `command`.
void add_sustained_warmup_option(CLI::App& command, EvalSettings* eval);

}  // namespace evotune::cli
