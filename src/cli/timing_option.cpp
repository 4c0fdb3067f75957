// How variants are timed, as options: warm-up, L2 flush, single launches or CUDA graphs, repetitions, limit.
#include "cli/timing_option.hpp"

#include <cstdio>

#include "cli/number_checks.hpp"

namespace evotune::cli {

std::string timing_help() {
  char text[640];
  std::snprintf(
      text, sizeof text,
      "How variants are timed, stored with each measurement: single (each execution between two CUDA "
      "events), graph (G back-to-back executions captured in a CUDA graph, each replay timed, the "
      "time per execution replay / G, so launch overhead drops out; G = ceil(%g us / the fastest "
      "warm-up execution), 1 to %d), or auto (graph for variants whose fastest warm-up execution "
      "takes under %g us, single otherwise). --flush-l2 on flushes before each launch or replay",
      kGraphReplayUs, kGraphMaxExecutions, kAutoGraphBelowUs);
  return text;
}

void add_timing_options(CLI::App& command, EvalSettings* eval) {
  command.add_option("--warmup", eval->warmup, "Executions before timing (graph, auto: the fastest sets G)")
      ->capture_default_str();
  command
      .add_option(
          "--warmup-ms", eval->warmup_ms,
          "Then keep executing (graph replays) for at least this long before timing, so that the timed "
          "executions run at the clocks a sustained load of the variant settles at (power and thermal "
          "limits), not at an idle GPU's boost (0: no such warm-up)")
      ->capture_default_str()
      ->check(in_range(0.0, 60000.0));
  command
      .add_option_function<std::string>(
          "--flush-l2", [eval](const std::string& value) { eval->flush_l2 = value == "on"; },
          "Overwrite a buffer of twice the L2 before each timed launch or graph replay (on, the default: "
          "times from DRAM) or not (off: inputs may stay in L2 between launches, as in a loop of calls); "
          "tune and remeasure store it with each measurement")
      ->check(CLI::IsMember({"on", "off"}));
  command
      .add_option_function<std::string>(
          "--timing", [eval](const std::string& value) { eval->timing = *timing_mode_from_string(value); },
          timing_help())
      ->check(CLI::IsMember({"single", "graph", "auto"}))
      ->default_str("auto");
  command
      .add_option("--reps", eval->repetitions, "Timed launches (graph replays) per variant (median reported)")
      ->capture_default_str()
      ->check(positive());
  command
      .add_option("--timeout-ms", eval->timeout_ms,
                  "Ceiling of the per-launch limit (derived from the reference's and the best time)")
      ->capture_default_str()
      ->check(positive());
}

}  // namespace evotune::cli
