// `evotune tune SPACE`: runs a search and prints the best configs found.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/result_table.hpp"
#include "cli/sanitizer_table.hpp"
#include "cli/timing_option.hpp"
#include "core/error.hpp"
#include "core/objective.hpp"
#include "replay/recorded_sweep.hpp"
#include "session/problem_sequence.hpp"
#include "session/tune_session.hpp"
#include "session/worker_setup.hpp"
#include "space/problem_list.hpp"
#include "space/search_space.hpp"
#include "strategy/strategy_table.hpp"
#include "tools/sanitize_variant.hpp"

namespace evotune::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int signal) {
  g_interrupted = true;
  std::signal(signal, SIG_DFL);  // a second one ends the process at once
}

constexpr int kInterruptedExit = 130;

// "Search strategy:" and a line for each strategy of the table: its name and what it does.
std::string strategy_help() {
  std::size_t width = 0;
  for (const StrategyEntry& entry : strategy_table()) width = std::max(width, entry.name.size());
  std::string help = "Search strategy:";
  for (const StrategyEntry& entry : strategy_table())
    help += "\n  " + std::string(entry.name) + std::string(width + 2 - entry.name.size(), ' ') +
            std::string(entry.description);
  return help;
}

// GPU work runs in worker processes (one per GPU) that the session starts from this same binary, so a
// kernel that faults or hangs takes down only its worker; this process keeps the strategy and the database.
// --sanitize-top K: the K fastest working configs of the summary under every compute-sanitizer tool.
void sanitize_top(const TuneOptions& options, const TuneSummary& summary, int count) {
  int done = 0;
  for (const RankedResult& result : summary.top) {
    if (done == count) break;
    if (result.status != Status::ok) continue;
    SanitizeRequest request;
    request.space_file = options.space_file;
    request.problem = options.problem;
    request.params = result.params;
    request.device = first_listed_device(options.devices);
    request.tools = parse_sanitizer_tools("");
    request.evotune = self_path();
    request.seed = options.seed;
    const SanitizeResult sanitized = sanitize_and_store(request, result.config_id, options.db_file);
    std::printf("compute-sanitizer, config %lld (%s):\n", static_cast<long long>(result.config_id),
                canonical_json(result.params).c_str());
    for (const auto& finding : sanitized.findings) print_sanitizer_finding(finding, "  ", stdout);
    ++done;
  }
}

// For each problem, the sweep among `replays` recorded for it (a single file is taken as it is: run_tune says
// when it does not match). Each sweep file is read once.
std::vector<std::filesystem::path> replays_for(const std::vector<std::string>& replays,
                                               const SearchSpace& space,
                                               const std::vector<std::string>& problems) {
  if (replays.empty()) return {};
  if (replays.size() == 1) return std::vector<std::filesystem::path>(problems.size(), replays.front());
  std::vector<Sizes> recorded;
  for (const std::string& file : replays)  // sizes declared since the recording take their defaults
    recorded.push_back(space.complete_problem(load_sweep(file).problem));
  std::vector<std::filesystem::path> chosen;
  for (const std::string& problem : problems) {
    const Sizes sizes = space.resolve_problem(problem);
    const auto found = std::find(recorded.begin(), recorded.end(), sizes);
    if (found == recorded.end())
      throw Error("no --replay sweep is of problem " + key_value_text(sizes) + " (" +
                  std::to_string(replays.size()) + " given)");
    chosen.push_back(replays[static_cast<std::size_t>(found - recorded.begin())]);
  }
  return chosen;
}

// "best: 0.87x cublasLt 13.1.0's time": the fastest stored config against the library's best algorithm, both
// from the rerank's interleaved rounds where there was one (the same clocks and temperature).
void print_baseline_ratio(const TuneSummary& summary) {
  if (!summary.baseline || summary.top.empty() || summary.top.front().status != Status::ok) return;
  const RankedResult& best = summary.top.front();
  const BaselineTiming& baseline = *summary.baseline;
  const bool reranked = best.remeasured && baseline.reranked_us > 0;
  const double ours = best.reported_us();
  const double theirs = comparable_us(baseline, best.remeasured.has_value());
  std::printf(
      "best: %.2fx %s's time (%.1f us against %.1f us, its heuristic's algorithm #%d of %d%s; %.1f us its "
      "first at the start)\n",
      ours / theirs, baseline.library.c_str(), ours, theirs, baseline.best_index, baseline.algorithms,
      reranked ? ", both re-timed in the rerank's rounds" : ", timed at the run's start",
      baseline.heuristic_us);
}

// One problem's search, its summary line and table, and the sanitizer runs asked for.
void run_one(const TuneOptions& options, int sanitize_count) {
  const TuneSummary summary = run_tune(options, &g_interrupted);
  spdlog::info(
      "run {}: {} evaluated ({} failed) of {} valid configs ({} measured before) in {:.1f} s "
      "({:.0f} per minute), {} worker restarts; {}",
      summary.run_id, summary.evaluated, summary.failed, summary.candidates, summary.skipped, summary.seconds,
      summary.seconds > 0 ? 60.0 * summary.evaluated / summary.seconds : 0.0, summary.worker_restarts,
      summary.stop_reason == StopReason::failed ? summary.error : to_string(summary.stop_reason));
  print_result_table(summary.top, stdout);
  print_baseline_ratio(summary);
  if (sanitize_count > 0 && !options.replay_file && summary.stop_reason != StopReason::failed &&
      summary.stop_reason != StopReason::interrupted)
    sanitize_top(options, summary, sanitize_count);
  if (summary.stop_reason == StopReason::interrupted) {
    std::fprintf(stderr, "evotune: interrupted: rerun the same command to go on\n");
    throw ExitCode{kInterruptedExit};
  }
  if (summary.stop_reason == StopReason::failed)
    throw Error(summary.error + " (what was measured is stored: rerun the same command to go on)");
}

void run(TuneOptions options, long long budget, int sanitize_count, const std::string& problems_file,
         const std::vector<std::string>& replays) {
  if (budget > 0) options.budget = budget;
  options.command_line = command_line();
  options.worker_command = {self_path(), "worker"};
  const SearchSpace space = SearchSpace::load(options.space_file);
  std::vector<std::string> problems = problem_list(options.problem, problems_file);
  const std::vector<Sizes> resolved = resolve_problems(space, problems, problems_file);
  if (problems.size() > 1) problems = tuning_sequence(space, options.db_file, resolved);
  // Per problem, all chosen before the first search.
  const std::vector<std::filesystem::path> replay_files = replays_for(replays, space, problems);
  g_interrupted = false;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    TuneOptions one = options;
    one.problem = problems[i];
    if (!replays.empty()) one.replay_file = replay_files[i];
    if (problems.size() > 1) spdlog::info("problem {} of {}: {}", i + 1, problems.size(), one.problem);
    try {
      run_one(one, sanitize_count);
    } catch (const Error& e) {
      if (problems.size() == 1) throw;
      throw Error("problem " + one.problem + ": " + e.what());
    }
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* command = app.add_subcommand("tune", "Search a space on the GPU and store every result");
  auto options = std::make_shared<TuneOptions>();
  auto budget = std::make_shared<long long>(0);
  auto replays = std::make_shared<std::vector<std::string>>();
  auto problems_file = std::make_shared<std::string>();
  auto sanitize_count = std::make_shared<int>(0);
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem,
                      "Problem sizes, e.g. B=1,H=8,S=512,D=64 (default: the space's); ranges and lists tune "
                      "several problems, one after another: S=512..8192:x2, B=1,8");
  command->add_option(
      "--reference-config", options->reference_config,
      "For a space with no reference kernel (a T1 file): validate against the template at this "
      "config, NAME=V,... (parameters not named keep their Default)");
  command
      ->add_option("--problems", *problems_file,
                   "File of problems to tune one after another (one a line, or a JSON list); each search "
                   "starts from the best configs of the nearest problems tuned before")
      ->check(CLI::ExistingFile);
  command->add_option("--strategy", options->strategy, strategy_help())
      ->check(CLI::IsMember(strategy_names()))
      ->capture_default_str();
  command->add_option("--budget", *budget, "Variants to evaluate in this run (default: the space's Budget)")
      ->check(positive());
  command
      ->add_option("--time-limit", options->time_limit_s,
                   "Seconds from the start of each problem's run after which no more variants are proposed "
                   "(those compiling or running finish, then the rerank, which starts no round past it after "
                   "its first; the search's first window is proposed even when the set-up took longer); 0: "
                   "the budget alone ends the search")
      ->check(non_negative());
  command->add_option("--seed", options->seed, "Seed of the strategy and of the validation inputs")
      ->capture_default_str();
  command->add_option(
      "--patience", options->patience,
      "Learning strategies: generations without improvement before stopping (0: the strategy's default)");
  command->add_option("--db", options->db_file, "Results database")->capture_default_str();
  command->add_option("--devices", options->devices, "GPUs to evaluate on: 0, 0,1 or all (one worker each)")
      ->capture_default_str();
  command
      ->add_option(
          "--validation-rounds", options->eval.validation_rounds,
          "Validation rounds, each on fresh random inputs (the first also launched twice for a bitwise "
          "comparison when the space is deterministic)")
      ->capture_default_str()
      ->check(in_range(1, 64));
  add_timing_options(*command, &options->eval);
  command
      ->add_option("--cut-slow", options->eval.cut_slow_factor,
                   "A validated variant whose fastest warm-up execution takes over this many times the best "
                   "time so far is timed from its warm-up executions alone (stored as cut short; objective "
                   "time, without --energy); 0: time every variant in full")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            char* end = nullptr;
            const double factor = std::strtod(text.c_str(), &end);
            return end != text.c_str() && *end == '\0' && (factor == 0 || factor >= 1.1)
                       ? std::string()
                       : "--cut-slow takes 0 (off) or a factor of at least 1.1, not " + text;
          },
          "0 or >= 1.1"));
  command
      ->add_option_function<std::string>(
          "--objective",
          [options](const std::string& value) { options->objective = *objective_from_string(value); },
          "What the search minimises: time (the median), energy (uJ per execution, from NVML's energy "
          "counter "
          "around a loop of executions) or edp (energy x time); energy and edp measure every working "
          "variant's "
          "energy (see --energy-window-ms)")
      ->check(CLI::IsMember({"time", "energy", "edp"}));
  command->add_flag("--energy", options->eval.measure_energy,
                    "Measure and store every working variant's energy, whatever the objective");
  command
      ->add_option("--energy-window-ms", options->eval.energy_window_ms,
                   "Energy: the loop of executions read around lasts at least this long")
      ->capture_default_str()
      ->check(in_range(10.0, 10000.0));
  command
      ->add_option("--compile-threads", options->compile_threads, "Parallel NVRTC compiles (0: one per core)")
      ->capture_default_str();
  command
      ->add_option(
          "--replay", *replays,
          "Answer from a recorded sweep instead of a GPU (see evotune record); repeat it for several "
          "problems: each takes the sweep of its problem")
      ->check(CLI::ExistingFile);
  command->add_option("--replay-delay-ms", options->replay_delay_ms, "Replay: wait this long per answer")
      ->capture_default_str();
  command->add_option("--replay-workers", options->replay_workers, "Replay: worker processes")
      ->capture_default_str()
      ->check(positive());
  command
      ->add_option("--rerank", options->rerank_top,
                   "After the search, re-time the K fastest working configs of this problem and device in "
                   "interleaved rounds (each round times every one of them once, in a rotating order) and "
                   "store their order and spread: `best` ranks by the re-measured medians and marks with ~ "
                   "the configs within noise of the winner (0: no rerank)")
      ->capture_default_str()
      ->check(non_negative());
  command->add_option("--rerank-rounds", options->rerank_rounds, "Rounds of the rerank")
      ->capture_default_str()
      ->check(positive());
  command
      ->add_option("--sanitize-top", *sanitize_count,
                   "After the search, run the K fastest working configs under compute-sanitizer (memcheck, "
                   "racecheck, synccheck, initcheck) and keep the findings (evotune show)")
      ->capture_default_str()
      ->check(non_negative());
  command->callback([options, budget, replays, sanitize_count, problems_file] {
    if (*sanitize_count > 0 && !replays->empty()) throw Error("--sanitize-top needs a GPU run, not --replay");
    if (needs_energy(options->objective)) options->eval.measure_energy = true;
    if (options->eval.measure_energy) check_energy_readable(options->objective, !replays->empty());
    run(*options, *budget, *sanitize_count, *problems_file, *replays);
  });
}

}  // namespace evotune::cli
