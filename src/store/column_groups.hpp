// Column groups read back into core types, shared by the store's writes and its queries.
#pragma once

#include <optional>

#include "core/outcome.hpp"
#include "store/sql.hpp"

namespace evotune {

// Three columns from `first`: frontend_ms, nvvm_ms, ptxas_ms. NULL front end: not measured.
inline std::optional<CompilePhases> read_phases(const sql::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  return CompilePhases{row.real(first), row.real(first + 1), row.real(first + 2)};
}

// Four columns from `first`: timing_mode, graph_executions, flush_l2, timing_note. NULL mode: not recorded.
// The note is a cut's reason after kCutNotePrefix (TimingMethod::cut), or else a graph's fallback.
inline std::optional<TimingMethod> read_method(const sql::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  TimingMethod method;
  method.graph = row.text(first) == "graph";
  method.graph_executions = static_cast<int>(row.int64(first + 1));
  method.flush_l2 = row.int64(first + 2) != 0;
  if (!row.is_null(first + 3)) {
    const std::string note = row.text(first + 3);
    if (note.starts_with(kCutNotePrefix))
      method.cut = note.substr(kCutNotePrefix.size());
    else
      method.fallback = note;
  }
  return method;
}

// The same four columns bound from parameter `first`: all NULL for no method.
inline void bind_method(sql::Statement& statement, int first, const std::optional<TimingMethod>& method) {
  if (!method) {
    for (int index = first; index < first + 4; ++index) statement.bind_null(index);
    return;
  }
  statement.bind_text(first, method->graph ? "graph" : "single")
      .bind_int(first + 1, method->graph_executions);
  statement.bind_int(first + 2, method->flush_l2 ? 1 : 0);
  if (!method->cut.empty())
    statement.bind_text(first + 3, std::string(kCutNotePrefix) + method->cut);
  else if (method->fallback.empty())
    statement.bind_null(first + 3);
  else
    statement.bind_text(first + 3, method->fallback);
}

// Four columns from `first`: energy_uj, energy_power_w, energy_window_ms, energy_executions. NULL energy:
// not measured.
inline std::optional<EnergyStats> read_energy(const sql::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  return EnergyStats{row.real(first), row.real(first + 1), row.real(first + 2), row.int64(first + 3)};
}

// The same four columns bound from parameter `first`: all NULL for no energy.
inline void bind_energy(sql::Statement& statement, int first, const std::optional<EnergyStats>& energy) {
  if (!energy) {
    for (int index = first; index < first + 4; ++index) statement.bind_null(index);
    return;
  }
  statement.bind_real(first, energy->uj_per_execution).bind_real(first + 1, energy->avg_power_w);
  statement.bind_real(first + 2, energy->window_ms).bind_int(first + 3, energy->executions);
}

}  // namespace evotune
