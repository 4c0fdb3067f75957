// How variants are timed: the mode a user asks for, the rule `auto` follows, and the method a measurement
// used.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace evotune {

// single: every execution of the variant (all its launches) between its own pair of CUDA events.
// graph: G back-to-back executions captured in a CUDA graph; each replay of the graph between an event pair,
//   the time per execution the replay's time / G, so the launch overhead of short kernels drops out.
// automatic ("auto"): graph for a variant whose warm-up executions take less than kAutoGraphBelowUs (the
//   fastest of them), single otherwise.
enum class TimingMode { single, graph, automatic };

inline constexpr double kAutoGraphBelowUs = 50;
// G = ceil(kGraphReplayUs / one execution's time in the warm-up), between 1 and kGraphMaxExecutions.
inline constexpr double kGraphReplayUs = 100;
inline constexpr int kGraphMaxExecutions = 20;

std::string_view to_string(TimingMode mode);  // "single", "graph", "auto"
std::optional<TimingMode> timing_mode_from_string(std::string_view text);

// Whether `mode` times a variant whose warm-up executions took `estimate_us` (the fastest) with a graph.
bool uses_graph(TimingMode mode, double estimate_us);
// G for a variant whose execution takes `estimate_us`; kGraphMaxExecutions for a time of 0 or less.
int graph_executions_for(double estimate_us);

// How one measurement was timed.
struct TimingMethod {
  bool graph = false;        // false: single executions
  int graph_executions = 0;  // G, executions per replay, when graph
  bool flush_l2 = true;      // a buffer of twice the L2 overwritten before each timed launch or replay
  std::string fallback{};    // why a graph was wanted but single executions were timed; "" otherwise
  // Why the variant was timed from its warm-up executions alone (they were far slower than the best so far,
  // EvalSettings::cut_slow_factor); "" otherwise. Stored in the timing note as kCutNotePrefix + this.
  std::string cut{};

  bool operator==(const TimingMethod&) const = default;
};

// The stored timing note of a measurement cut short (TimingMethod::cut) begins with this.
inline constexpr std::string_view kCutNotePrefix = "cut short: ";

// For tables: "graph x12", "single", "single*" (a graph that fell back), "warm-up" (cut short), then " flush"
// or " no-flush".
std::string short_text(const TimingMethod& method);
// For sentences: "a CUDA graph of 12 executions per replay, L2 flushed before each replay", "single launches,
// L2 not flushed (graph capture failed: ...)".
std::string describe(const TimingMethod& method);

}  // namespace evotune
