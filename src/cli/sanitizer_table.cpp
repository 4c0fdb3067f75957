// Printing sanitizer findings and reading the --tools list.
#include "cli/sanitizer_table.hpp"

#include "core/error.hpp"
#include "tools/sanitizer_report.hpp"

namespace evotune::cli {

void print_sanitizer_finding(const SanitizerFinding& finding, const std::string& indent, std::FILE* out) {
  std::string counts = std::to_string(finding.errors) + (finding.errors == 1 ? " error" : " errors");
  if (finding.tool == "racecheck")
    counts += ", " + std::to_string(finding.warnings) + (finding.warnings == 1 ? " warning" : " warnings");
  if (finding.verdict == "failed") counts = "-";
  std::fprintf(out, "%s%-10s %-9s %-22s %7.1f s   variant: %s\n", indent.c_str(), finding.tool.c_str(),
               finding.verdict.c_str(), counts.c_str(), finding.seconds,
               finding.eval_status.empty() ? "no result" : finding.eval_status.c_str());
  if (!finding.summary.empty()) std::fprintf(out, "%s    %s\n", indent.c_str(), finding.summary.c_str());
}

std::vector<std::string> parse_sanitizer_tools(const std::string& text) {
  std::vector<std::string> tools;
  if (text.empty()) {
    for (const char* tool : kSanitizerTools) tools.emplace_back(tool);
    return tools;
  }
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string tool = text.substr(start, end - start);
    if (!is_sanitizer_tool(tool))
      throw Error("--tools: unknown tool '" + tool + "' (memcheck, racecheck, synccheck or initcheck)");
    tools.push_back(tool);
    start = end + 1;
  }
  return tools;
}

}  // namespace evotune::cli
