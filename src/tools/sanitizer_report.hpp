// Reading compute-sanitizer's log: the counts of its summary line and the first finding as one line.
#pragma once

#include <string>
#include <vector>

#include "core/sanitizer_finding.hpp"
#include "eval/guard_regions.hpp"

namespace evotune {

// The tools `evotune sanitize` knows, in the order it runs them by default.
inline constexpr const char* kSanitizerTools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
bool is_sanitizer_tool(const std::string& tool);

// Fills verdict, errors, warnings, summary and report from the log compute-sanitizer wrote with --log-file
// (lines prefixed "========= "). A log without a summary line is a failed run.
SanitizerFinding parse_sanitizer_log(const std::string& tool, const std::string& log);

// memcheck names an out-of-bounds access by the nearest allocation's address; where that is one of the
// variant's exact-size buffers (logged by `evotune eval --exact-buffers`), the summary gets the buffer's
// name: "... / buffer 'out' (variant): 4 bytes after its end, of 4194304 bytes". Unchanged otherwise.
void name_the_buffer(SanitizerFinding& finding, const std::vector<BufferAllocation>& allocations);

}  // namespace evotune
