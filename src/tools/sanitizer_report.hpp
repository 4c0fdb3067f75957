// Reading compute-sanitizer's log: the counts of its summary line and the first finding as one line.
#pragma once

#include <string>

#include "core/sanitizer_finding.hpp"

namespace evotune {

// The tools `evotune sanitize` knows, in the order it runs them by default.
inline constexpr const char* kSanitizerTools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
bool is_sanitizer_tool(const std::string& tool);

// Fills verdict, errors, warnings, summary and report from the log compute-sanitizer wrote with --log-file
// (lines prefixed "========= "). A log without a summary line is a failed run.
SanitizerFinding parse_sanitizer_log(const std::string& tool, const std::string& log);

}  // namespace evotune
