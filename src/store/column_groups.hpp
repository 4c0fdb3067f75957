// Column groups read back into core types, shared by the store's writes and its queries.
#pragma once

#include <optional>

#include "core/outcome.hpp"
#include "store/sqlite.hpp"

namespace evotune {

// Three columns from `first`: frontend_ms, nvvm_ms, ptxas_ms. NULL front end: not measured.
inline std::optional<CompilePhases> read_phases(const sqlite::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  return CompilePhases{row.real(first), row.real(first + 1), row.real(first + 2)};
}

}  // namespace evotune
