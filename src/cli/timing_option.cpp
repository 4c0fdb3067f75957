// --timing: single launches, CUDA graphs, or graphs for short variants only.
#include "cli/timing_option.hpp"

#include <cstdio>

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

void add_timing_option(CLI::App& command, EvalSettings* eval) {
  command
      .add_option_function<std::string>(
          "--timing", [eval](const std::string& value) { eval->timing = *timing_mode_from_string(value); },
          timing_help())
      ->check(CLI::IsMember({"single", "graph", "auto"}))
      ->default_str("auto");
}

void add_sustained_warmup_option(CLI::App& command, EvalSettings* eval) {
  command
      .add_option("--warmup-ms", eval->warmup_ms,
                  "Then keep executing (graph replays) for at least this long before timing, so that the timed "
                  "executions run at the clocks a sustained load of the variant settles at (power and thermal "
                  "limits), not at an idle GPU's boost (0: no such warm-up)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60000.0));
}

}  // namespace evotune::cli
