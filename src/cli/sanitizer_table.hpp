// compute-sanitizer findings as the CLI prints them: one line per tool, the first finding under it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/sanitizer_finding.hpp"

namespace evotune::cli {

// "  racecheck   findings  2 errors, 0 warnings   31.2 s   variant: ok" and, indented under it, the summary.
void print_sanitizer_finding(const SanitizerFinding& finding, const std::string& indent, std::FILE* out);

// The tools named in "memcheck,racecheck" (empty: all four); throws Error naming an unknown one.
std::vector<std::string> parse_sanitizer_tools(const std::string& text);

}  // namespace evotune::cli
