// compute-sanitizer's log: "========= " before every line of its own; findings are blocks that start at the
// left margin and continue indented; a summary line ends the run.
#include "tools/sanitizer_report.hpp"

#include <algorithm>
#include <cstdint>
#include <regex>
#include <sstream>
#include <vector>

namespace evotune {
namespace {

constexpr std::size_t kReportLimit = 64 * 1024;
constexpr std::size_t kSummaryLines = 4;

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The tool's lines without their prefix; the program's own lines (none with --log-file) are dropped.
std::vector<std::string> tool_lines(const std::string& log) {
  static const std::string prefix = "=========";
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) lines.push_back(line.substr(prefix.size()));
  return lines;
}

bool is_summary(const std::string& line) {
  return line.find("ERROR SUMMARY:") != std::string::npos ||
         line.find("RACECHECK SUMMARY:") != std::string::npos;
}

bool is_banner(const std::string& line) {
  const std::string text = trim(line);
  return text.empty() || text == "COMPUTE-SANITIZER" || text.rfind("This may be", 0) == 0;
}

}  // namespace

bool is_sanitizer_tool(const std::string& tool) {
  return std::any_of(std::begin(kSanitizerTools), std::end(kSanitizerTools),
                     [&](const char* known) { return tool == known; });
}

SanitizerFinding parse_sanitizer_log(const std::string& tool, const std::string& log) {
  SanitizerFinding finding;
  finding.tool = tool;
  const std::vector<std::string> lines = tool_lines(log);
  for (const auto& line : lines) finding.report += trim(line) + "\n";
  if (finding.report.size() > kReportLimit) finding.report = finding.report.substr(0, kReportLimit) + "...\n";

  static const std::regex errors_line(R"(ERROR SUMMARY: (\d+) errors?)");
  static const std::regex race_line(
      R"(RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, (\d+) warnings?\))");
  bool summarised = false;
  for (const auto& line : lines) {
    std::smatch match;
    if (std::regex_search(line, match, race_line)) {
      finding.errors = std::stoi(match[1]);
      finding.warnings = std::stoi(match[2]);
      summarised = true;
    } else if (std::regex_search(line, match, errors_line)) {
      finding.errors = std::stoi(match[1]);
      summarised = true;
    }
  }
  // The first finding: its first line (at the margin) and the indented lines under it.
  std::vector<std::string> first;
  for (const auto& line : lines) {
    if (is_banner(line) || is_summary(line)) {
      if (!first.empty()) break;
      continue;
    }
    const bool indented = line.rfind("    ", 0) == 0 || line.rfind(" \t", 0) == 0;
    if (!first.empty() && !indented) break;
    if (first.size() < kSummaryLines) first.push_back(trim(line));
  }
  for (const auto& part : first) finding.summary += (finding.summary.empty() ? "" : " / ") + part;

  if (!summarised) {
    finding.verdict = "failed";
    if (finding.summary.empty()) finding.summary = "compute-sanitizer wrote no summary (it did not finish)";
    return finding;
  }
  finding.verdict = finding.errors + finding.warnings > 0 ? "findings" : "clean";
  return finding;
}

void name_the_buffer(SanitizerFinding& finding, const std::vector<BufferAllocation>& allocations) {
  // "and is 4 bytes after the nearest allocation at 0x7f0000000000 of size 4,194,304 bytes" (CUDA 12, 13)
  static const std::regex nearest(
      R"(is ([\d,]+) bytes (after|before) the nearest allocation at 0x([0-9a-fA-F]+) of size ([\d,]+) bytes)");
  std::smatch match;
  if (!std::regex_search(finding.report, match, nearest)) return;
  const std::uint64_t address = std::stoull(match[3], nullptr, 16);
  const auto at = std::find_if(allocations.begin(), allocations.end(), [&](const BufferAllocation& a) {
    return address >= a.address && address < a.address + std::max<std::size_t>(a.bytes, 1);
  });
  if (at == allocations.end()) return;
  const std::string side = match[2] == "after" ? " after its end" : " before its start";
  finding.summary += (finding.summary.empty() ? "" : " / ") +
                     ("buffer '" + at->buffer + "' (" + at->copy + "): " + match[1].str() + " bytes" + side +
                      ", of " + std::to_string(at->bytes) + " bytes");
}

}  // namespace evotune
