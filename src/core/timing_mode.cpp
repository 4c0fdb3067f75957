// The timing modes' names, the auto rule and the texts of a timing method.
#include "core/timing_mode.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace evotune {
namespace {
constexpr std::array<std::pair<TimingMode, std::string_view>, 3> kTimingModeNames{{
    {TimingMode::single, "single"},
    {TimingMode::graph, "graph"},
    {TimingMode::automatic, "auto"},
}};
}  // namespace

std::string_view to_string(TimingMode mode) {
  for (const auto& [value, name] : kTimingModeNames)
    if (value == mode) return name;
  return "unknown";
}

std::optional<TimingMode> timing_mode_from_string(std::string_view text) {
  for (const auto& [value, name] : kTimingModeNames)
    if (name == text) return value;
  return std::nullopt;
}

bool uses_graph(TimingMode mode, double estimate_us) {
  switch (mode) {
    case TimingMode::single:
      return false;
    case TimingMode::graph:
      return true;
    case TimingMode::automatic:
      return estimate_us < kAutoGraphBelowUs;
  }
  return false;
}

int graph_executions_for(double estimate_us) {
  if (!(estimate_us > 0)) return kGraphMaxExecutions;
  const double wanted = std::ceil(kGraphReplayUs / estimate_us);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(kGraphMaxExecutions)));
}

std::string short_text(const TimingMethod& method) {
  if (!method.cut.empty()) return std::string("warm-up") + (method.flush_l2 ? " flush" : " no-flush");
  std::string text = method.graph ? "graph x" + std::to_string(method.graph_executions)
                                  : std::string(method.fallback.empty() ? "single" : "single*");
  return text + (method.flush_l2 ? " flush" : " no-flush");
}

std::string describe(const TimingMethod& method) {
  if (!method.cut.empty()) return "its warm-up executions only (" + method.cut + ")";
  std::string text = method.graph ? "a CUDA graph of " + std::to_string(method.graph_executions) +
                                        " executions per replay, L2 "
                                  : std::string("single launches, L2 ");
  text += method.flush_l2 ? (method.graph ? "flushed before each replay" : "flushed before each launch")
                          : "not flushed";
  if (!method.fallback.empty()) text += " (graph capture failed: " + method.fallback + ")";
  return text;
}

}  // namespace evotune
