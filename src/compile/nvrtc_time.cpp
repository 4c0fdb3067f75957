// NVRTC's timing CSV, one phase a row.
#include "compile/nvrtc_time.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "compile/log_text.hpp"

namespace evotune {
namespace {

// The phase's field in `phases`, or null for a phase evotune does not keep.
double* field_of(CompilePhases& phases, const std::string& name) {
  if (name == "CUDA C++ Frontend") return &phases.frontend_ms;
  if (name == "NVVM Optimizer") return &phases.nvvm_ms;
  if (name == "PTX Translation") return &phases.ptxas_ms;
  return nullptr;
}

std::optional<double> milliseconds(const std::string& value, const std::string& unit) {
  double number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || number < 0) return std::nullopt;
  if (unit == "ms") return number;
  if (unit == "s") return number * 1e3;
  if (unit == "us") return number / 1e3;
  return std::nullopt;
}

}  // namespace

std::optional<CompilePhases> parse_nvrtc_time(const std::string& csv) {
  CompilePhases phases;
  bool found = false;
  for (const std::string& row : split(csv)) {
    std::vector<std::string> cells = split(row, ',');
    for (auto& cell : cells) cell = trim(cell);
    if (cells.size() != 4) continue;
    double* field = field_of(phases, cells[1]);
    const auto ms = milliseconds(cells[2], cells[3]);
    if (!field || !ms) continue;
    *field += *ms;
    found = true;
  }
  if (!found) return std::nullopt;
  return phases;
}

std::optional<CompilePhases> read_nvrtc_time(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return parse_nvrtc_time(text.str());
}

}  // namespace evotune
