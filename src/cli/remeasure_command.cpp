// `evotune remeasure SPACE --top K`: re-times the K fastest stored configs of a problem on this host's GPU in
// interleaved rounds (the rerank of `tune --rerank`) and stores their order, without searching. On a
// database shared by several hosts, this is how one host's results are checked on another's GPU.
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/result_table.hpp"
#include "cli/timing_option.hpp"
#include "core/error.hpp"
#include "session/tune_session.hpp"

namespace evotune::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop(int) { g_stop = true; }

}  // namespace

void add_remeasure_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("remeasure", "Re-time the fastest stored configs of a problem on this host's GPU");
  auto options = std::make_shared<TuneOptions>();
  auto replay = std::make_shared<std::string>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem,
                      "Problem sizes, e.g. B=1,H=8,S=512,D=64 (default: the space's)");
  command->add_option("--top", options->rerank_top, "How many of the fastest configs")
      ->capture_default_str()
      ->check(in_range(2, 1000));
  command->add_option("--rounds", options->rerank_rounds, "Interleaved rounds, each timing every config once")
      ->capture_default_str()
      ->check(positive());
  command->add_option("--db", options->db_file, "Results database: a file or postgresql://...")
      ->capture_default_str();
  command->add_option("--devices", options->devices, "GPUs to time on: 0, 0,1 or all")->capture_default_str();
  add_timing_options(*command, &options->eval);
  command->add_option("--replay", *replay, "A recorded sweep answers instead of a GPU (tests)")
      ->check(CLI::ExistingFile);
  command->callback([options, replay] {
    TuneOptions run = *options;
    run.remeasure_only = true;
    if (!replay->empty()) run.replay_file = *replay;
    run.command_line = command_line();
    run.worker_command = {self_path(), "worker"};
    g_stop = false;
    std::signal(SIGINT, on_stop);
    std::signal(SIGTERM, on_stop);
    const TuneSummary summary = run_tune(run, &g_stop);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (summary.stop_reason == StopReason::failed) throw Error(summary.error);
    if (summary.stop_reason == StopReason::interrupted) {
      std::fprintf(stderr, "evotune: interrupted: nothing of the rerank stored\n");
      throw ExitCode{130};
    }
    spdlog::info("run {}: remeasured the fastest configs on this host", summary.run_id);
    print_result_table(summary.top, stdout);
  });
}

}  // namespace evotune::cli
