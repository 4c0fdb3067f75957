// evotune's entry point: logging set-up, subcommands, and one clear line for every set-up error.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "cli/commands.hpp"

namespace {
std::string g_command_line;
}

namespace evotune::cli {
const std::string& command_line() { return g_command_line; }
std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }
void set_command_line(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) g_command_line += (i ? " " : "") + std::string(argv[i]);
}
}  // namespace evotune::cli

int main(int argc, char** argv) {
  // No CUDA JIT cache, before the first CUDA call (the driver reads it once, at cuInit): a compile found
  // there leaves ptxas's resource report (registers, spills) out of NVRTC's log, seen in `eval`, which
  // queries the GPU before it compiles. The database is evotune's compile cache. Child processes inherit it.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  spdlog::set_default_logger(spdlog::stderr_color_mt("evotune"));
  spdlog::set_pattern("[%H:%M:%S] %^%l%$ %v");
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every failed variant's reason
  evotune::cli::set_command_line(argc, argv);

  CLI::App app{"evotune: searches CUDA kernel variants for the fastest correct one on this GPU"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log each variant's failure reason")->each([](const std::string&) {
    spdlog::set_level(spdlog::level::debug);
  });
  evotune::cli::add_tune_command(app);
  evotune::cli::add_best_command(app);
  evotune::cli::add_eval_command(app);
  evotune::cli::add_export_command(app);
  evotune::cli::add_check_command(app);
  evotune::cli::add_convert_command(app);
  evotune::cli::add_runs_command(app);
  evotune::cli::add_remeasure_command(app);
  evotune::cli::add_show_command(app);
  evotune::cli::add_devices_command(app);
  evotune::cli::add_record_command(app);
  evotune::cli::add_bench_strategies_command(app);
  evotune::cli::add_bench_transfer_command(app);
  evotune::cli::add_bench_dispatch_command(app);
  evotune::cli::add_report_command(app);
  evotune::cli::add_sanitize_command(app);
  evotune::cli::add_profile_command(app);
  evotune::cli::add_worker_command(app);
  evotune::cli::add_compile_worker_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help
    // A bad command line, as every other refusal: one line, exit 1.
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::fprintf(stderr, "evotune: error: %s (--help lists the options)\n", message.c_str());
    return 1;
  } catch (const evotune::cli::ExitCode& exit) {
    return exit.code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evotune: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
