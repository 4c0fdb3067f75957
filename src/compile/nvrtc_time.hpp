// Reads NVRTC's --time report: how long the front end, the NVVM optimizer and ptxas took.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/outcome.hpp"

namespace evotune {

// NVRTC 13 appends one CSV row per phase, after a title row when the file was new:
//   File name, phase name, metric, unit
//   attention.cu, CUDA C++ Frontend, 47, ms
// Rows of the same phase add up; unknown phases, malformed rows and units other than ms, s and us are
// skipped. nullopt when no row names a known phase.
std::optional<CompilePhases> parse_nvrtc_time(const std::string& csv);

// The report in `file`; nullopt when the file is missing or unreadable, or holds no known phase.
std::optional<CompilePhases> read_nvrtc_time(const std::filesystem::path& file);

}  // namespace evotune
