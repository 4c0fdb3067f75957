// The evotune subcommands; each adds itself to the CLI11 app and runs from its callback.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace evotune::cli {

// Options shared by subcommands that read or write the results database.
inline constexpr const char* kDefaultDb = "results/evotune.db";

void add_tune_command(CLI::App& app);
void add_best_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_remeasure_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_devices_command(CLI::App& app);
void add_record_command(CLI::App& app);
void add_bench_strategies_command(CLI::App& app);
void add_bench_transfer_command(CLI::App& app);
void add_bench_dispatch_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_sanitize_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_worker_command(CLI::App& app);
void add_compile_worker_command(CLI::App& app);

// Thrown to end the program with this exit code once the reason has been printed.
struct ExitCode {
  int code;
};

// This executable's path: child processes (GPU workers, compiles) run it again.
std::string self_path();

// The command line as typed, stored with each run.
const std::string& command_line();
void set_command_line(int argc, char** argv);

}  // namespace evotune::cli
