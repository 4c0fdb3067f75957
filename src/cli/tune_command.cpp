// `evotune tune SPACE`: runs a search and prints the best configs found.
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/result_table.hpp"
#include "core/error.hpp"
#include "session/tune_session.hpp"
#include "strategy/strategy.hpp"

namespace evotune::cli {
namespace {

std::atomic<bool> g_interrupted{false};

std::atomic<pid_t> g_child{0};

extern "C" void on_interrupt(int signal) {
  g_interrupted = true;
  std::signal(signal, SIG_DFL);  // a second one ends the process at once
}

// In the parent: SIGTERM (from `timeout`, a scheduler) asks the child to stop cleanly, as Ctrl-C does.
extern "C" void forward_terminate(int) {
  if (const pid_t child = g_child.load(); child > 0) kill(child, SIGINT);
}

// Exit codes of the process that runs the session.
constexpr int kChildFinished = 0;
constexpr int kChildFailed = 1;
constexpr int kChildGpuUnusable = 3;

int run_session(const TuneOptions& options) {
  try {
    g_interrupted = false;
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    const TuneSummary summary = run_tune(options, &g_interrupted);
    spdlog::info("run {}: {} evaluated ({} failed) of {} valid configs ({} measured before); {}",
                 summary.run_id, summary.evaluated, summary.failed, summary.candidates, summary.skipped,
                 summary.stop_reason);
    if (summary.gpu_unusable) return kChildGpuUnusable;
    print_result_table(summary.top, stdout);
    return kChildFinished;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evotune: error: %s\n", e.what());
    return kChildFailed;
  }
}

// A kernel fault (illegal address) or a hang leaves the process's CUDA context unusable, so the session runs
// in a child process; when it reports the GPU unusable (the faulting variant already stored), a fresh child
// picks up where it stopped, since measured configs are never measured again. The parent never touches CUDA.
void run(TuneOptions options, long long budget) {
  if (budget > 0) options.budget = budget;
  options.command_line = command_line();
  constexpr int kMaxRestarts = 1000;
  for (int restart = 0;; ++restart) {
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) throw Error("fork failed: cannot start the tuning process");
    if (child == 0) {
      const int code = run_session(options);
      std::fflush(nullptr);
      _exit(code);
    }
    g_child = child;
    std::signal(SIGINT, SIG_IGN);  // the child stops cleanly on Ctrl-C; the parent waits for it
    std::signal(SIGTERM, forward_terminate);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_child = 0;
    if (WIFSIGNALED(status))
      throw Error("the tuning process died with signal " + std::to_string(WTERMSIG(status)) +
                  ": rerun the same command to go on");
    const int code = WEXITSTATUS(status);
    if (code == kChildFinished) return;
    if (code != kChildGpuUnusable) throw ExitCode{code};  // the child printed why
    if (restart == kMaxRestarts)
      throw Error("too many GPU faults: stopping after " + std::to_string(restart) + " restarts");
    spdlog::warn("restarting the tuning process with a fresh GPU context (restart {})", restart + 1);
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* command = app.add_subcommand("tune", "Search a space on the GPU and store every result");
  auto options = std::make_shared<TuneOptions>();
  auto budget = std::make_shared<long long>(0);
  auto strategies = strategy_names();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem,
                      "Problem sizes, e.g. B=1,H=8,S=512,D=64 (default: the space's)");
  command->add_option("--strategy", options->strategy, "Search strategy")
      ->check(CLI::IsMember(strategies))
      ->capture_default_str();
  command->add_option("--budget", *budget, "Variants to evaluate in this run (default: the space's Budget)");
  command->add_option("--seed", options->seed, "Seed of the strategy and of the validation inputs")
      ->capture_default_str();
  command->add_option("--db", options->db_file, "Results database")->capture_default_str();
  command->add_option("--device", options->device, "GPU ordinal")->capture_default_str();
  command->add_option("--warmup", options->eval.warmup, "Untimed launches before timing")
      ->capture_default_str();
  command->add_option("--reps", options->eval.repetitions, "Timed launches per variant (median reported)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--timeout-ms", options->eval.timeout_ms, "A launch running longer than this is a timeout")
      ->capture_default_str();
  command
      ->add_option("--compile-threads", options->compile_threads, "Parallel NVRTC compiles (0: one per core)")
      ->capture_default_str();
  command->callback([options, budget] { run(*options, *budget); });
}

}  // namespace evotune::cli
