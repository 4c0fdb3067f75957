// Line-by-line reading of NVRTC/ptxas logs.
#include "compile/ptxas_log.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <vector>

#include "compile/log_text.hpp"
#include "core/kernel_symbol.hpp"

namespace evotune {
namespace {

// Static __shared__ arrays are limited to 48 KB on every architecture; more needs dynamic shared memory.
constexpr int kStaticSmemLimit = 48 * 1024;

int captured_int(const std::smatch& match, int group) { return std::stoi(match[group].str()); }

bool is_resource_line(const std::string& line) {
  static const std::regex pattern(
      "too much (shared|local|parameter) (data|space)|too many resources|uses too much", std::regex::icase);
  return std::regex_search(line, pattern);
}

bool is_error_line(const std::string& line) {
  static const std::regex pattern(R"((^|[\s:;])(error|fatal)\s*:|catastrophic error)", std::regex::icase);
  return std::regex_search(line, pattern);
}

}  // namespace

std::map<std::string, CompileInfo> parse_ptxas_functions(const std::string& log) {
  static const std::regex function_line(
      R"((?:Compiling entry function|Function properties for) '?([\w$]+)'?)");
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");

  std::map<std::string, CompileInfo> per_function;
  std::string current;
  for (const auto& line : split(log)) {
    std::smatch match;
    if (std::regex_search(line, match, function_line)) current = match[1].str();
    CompileInfo& info = per_function[current];
    if (std::regex_search(line, match, registers)) info.registers = captured_int(match, 1);
    if (std::regex_search(line, match, smem)) info.static_smem_bytes = captured_int(match, 1);
    if (std::regex_search(line, match, frame)) {
      info.stack_frame_bytes = captured_int(match, 1);
      info.spill_store_bytes = captured_int(match, 2);
      info.spill_load_bytes = captured_int(match, 3);
    }
  }
  return per_function;
}

const CompileInfo* find_function(const std::map<std::string, CompileInfo>& functions,
                                 const std::string& name) {
  if (name.empty()) return nullptr;  // "" holds the lines before the first function, not a kernel
  if (const auto found = functions.find(name); found != functions.end()) return &found->second;  // extern "C"
  std::vector<std::string> symbols;
  for (const auto& [symbol, info] : functions) symbols.push_back(symbol);
  const auto symbol = kernel_symbol(name, symbols);
  return symbol ? &functions.at(*symbol) : nullptr;
}

CompileInfo parse_ptxas_log(const std::string& log, const std::string& kernel_name) {
  const auto per_function = parse_ptxas_functions(log);
  if (const CompileInfo* found = find_function(per_function, kernel_name)) return *found;
  CompileInfo largest;
  for (const auto& [name, info] : per_function) {
    largest.registers = std::max(largest.registers, info.registers);
    largest.static_smem_bytes = std::max(largest.static_smem_bytes, info.static_smem_bytes);
    largest.stack_frame_bytes = std::max(largest.stack_frame_bytes, info.stack_frame_bytes);
    largest.spill_store_bytes = std::max(largest.spill_store_bytes, info.spill_store_bytes);
    largest.spill_load_bytes = std::max(largest.spill_load_bytes, info.spill_load_bytes);
  }
  return largest;
}

std::string wgmma_serialization(const std::string& log) {
  static const char* const kPhrase = "wgmma.mma_async instructions are serialized";
  if (log.find(kPhrase) == std::string::npos) return "";  // most logs: no line to read
  static const std::regex serialized(
      R"(wgmma\.mma_async instructions are serialized\s+(.*?)(\s+in the function\s+'[\w$]+')?\s*$)");
  for (const auto& line : split(log)) {
    std::smatch match;
    if (std::regex_search(line, match, serialized)) {
      static const std::regex spaces(R"(\s+)");
      return std::regex_replace(trim(match[1].str()), spaces, " ");
    }
  }
  return "";
}

CompileFailure diagnose_failure(const std::string& log, const CompileInfo& usage) {
  const auto lines = split(log);
  for (const auto& line : lines)
    if (is_resource_line(line)) return {Status::resource_error, trim(line)};
  for (const auto& line : lines)
    if (is_error_line(line)) return {Status::compile_error, trim(line)};
  if (usage.static_smem_bytes > kStaticSmemLimit)
    return {Status::resource_error, "ptxas: " + std::to_string(usage.static_smem_bytes) +
                                        " bytes of static shared memory exceed the " +
                                        std::to_string(kStaticSmemLimit) +
                                        "-byte static limit (use dynamic shared memory)"};
  return {Status::compile_error, "NVRTC_ERROR_COMPILATION with no error line in the log"};
}

}  // namespace evotune
