// `evotune runs`: the stored runs, newest first. Needs no GPU.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "core/core_json.hpp"
#include "core/error.hpp"
#include "core/gpu_state.hpp"
#include "store/store.hpp"

namespace evotune::cli {
namespace {

// "compile: 1968 compiles on 16 compilers, busy 2410.2 s, idle 95.0 s (3.8%), queue wait 12.5 s, mean queue
// 0.4 (max 16)"
void print_compile_stats(const CompileStats& stats) {
  const double total_ms = stats.busy_ms + stats.idle_ms;
  std::printf(
      "       compile: %lld compiles on %d compilers, busy %.1f s, idle %.1f s (%.1f%%), queue wait %.1f s, "
      "mean queue %.1f (max %lld)\n",
      static_cast<long long>(stats.compiles), stats.compilers, stats.busy_ms / 1e3, stats.idle_ms / 1e3,
      total_ms > 0 ? 100 * stats.idle_ms / total_ms : 0.0, stats.queue_wait_ms / 1e3, stats.queue_mean,
      static_cast<long long>(stats.queue_max));
}

// "       GPU 0 at the start: SM 1980/1980 MHz, ...", a line per GPU and moment; a malformed record says so.
void print_gpu_states(const std::string& states_json, const char* moment) {
  if (states_json.empty()) return;
  try {
    const std::vector<std::string> states = describe_gpu_states(states_json);
    for (std::size_t i = 0; i < states.size(); ++i)
      std::printf("       GPU %zu at the %s: %s\n", i, moment, states[i].c_str());
  } catch (const Error& e) {
    std::printf("       GPU state at the %s: unreadable (%s)\n", moment, e.what());
  }
}

}  // namespace

void add_runs_command(CLI::App& app) {
  auto* command = app.add_subcommand("runs", "List stored tuning runs, newest first");
  auto db = std::make_shared<std::string>(kDefaultDb);
  auto limit = std::make_shared<int>(20);
  command->add_option("--db", *db, "Results database: a file or postgresql://...")->capture_default_str();
  command->add_option("--limit", *limit, "How many")->capture_default_str()->check(positive());
  command->callback([db, limit] {
    const Store store = Store::open_existing(*db);
    const auto runs = store.runs(*limit);
    if (runs.empty()) {
      std::printf("no runs in %s\n", db->c_str());
      return;
    }
    std::printf("%5s  %-20s %-12s %-11s %-10s %6s %6s %-24s %s\n", "run", "started", "status", "strategy",
                "seed", "evals", "failed", "space", "problem / device");
    for (const auto& run : runs) {
      std::printf("%5lld  %-20s %-12s %-11s %-10llu %6lld %6lld %-24s %s / %s\n",
                  static_cast<long long>(run.id), run.started_at.c_str(), run.status.c_str(),
                  run.strategy.c_str(), static_cast<unsigned long long>(run.seed),
                  static_cast<long long>(run.evaluated), static_cast<long long>(run.failed),
                  (run.space_name + "@" + run.space_hash.substr(0, 8)).c_str(), run.problem.c_str(),
                  run.device_name.c_str());
      if (!run.host.empty())
        std::printf("       host: %s, pid %lld, last heartbeat %s\n", run.host.c_str(),
                    static_cast<long long>(run.pid),
                    run.heartbeat_at.empty() ? "none" : run.heartbeat_at.c_str());
      if (run.compile) print_compile_stats(*run.compile);
      if (run.reference_ms) std::printf("       reference kernel: %.3f ms per launch\n", *run.reference_ms);
      if (!run.timing.empty()) {
        try {
          std::printf("       timing: %s\n", describe_timing(nlohmann::json::parse(run.timing)).c_str());
        } catch (const std::exception& e) {
          std::printf("       timing: unreadable (%s)\n", e.what());
        }
      }
      print_gpu_states(run.gpu_state_start, "start");
      print_gpu_states(run.gpu_state_end, "end");
      if (run.workers > 0)
        std::printf("       workers: %d, idle %.1f s in all (waiting for a variant to evaluate)\n",
                    run.workers, run.worker_idle_ms / 1e3);
    }
  });
}

}  // namespace evotune::cli
