// ncu's CSV pages: every field quoted, "" inside a field for a quote. The details page has one row per
// (kernel, section, metric); the raw page one column per metric, a row of units under the header, then one
// row per kernel.
#include "tools/ncu_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/error.hpp"

namespace evotune {
namespace {

using Row = std::vector<std::string>;

std::vector<Row> csv_rows(const std::string& text) {
  std::vector<Row> rows;
  Row row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (any || !field.empty()) row.push_back(std::move(field));
      if (!row.empty()) rows.push_back(std::move(row));
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) row.push_back(std::move(field));
  if (!row.empty()) rows.push_back(std::move(row));
  return rows;
}

// The index of the first row whose first field is "ID" (ncu may print warnings before the table), and the
// column of each header name in it.
std::size_t header_row(const std::vector<Row>& rows, const std::string& page) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].empty() && rows[i][0] == "ID") return i;
  throw Error("ncu's " + page + " page has no table (no header row starting \"ID\")");
}

std::map<std::string, std::size_t> columns(const Row& header) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < header.size(); ++i) at.emplace(header[i], i);
  return at;
}

std::size_t column(const std::map<std::string, std::size_t>& at, const std::string& name,
                   const std::string& page) {
  const auto found = at.find(name);
  if (found == at.end()) throw Error("ncu's " + page + " page has no \"" + name + "\" column");
  return found->second;
}

const std::string& field(const Row& row, std::size_t index) {
  static const std::string empty;
  return index < row.size() ? row[index] : empty;
}

// "1,234.5" as ncu prints it; nullopt for text that is no number ("n/a").
std::optional<double> number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

void set_details_metric(KernelProfile& kernel, const std::string& metric, NcuValue value) {
  auto set_once = [&](NcuValue& slot) {
    if (slot.value.empty()) slot = std::move(value);
  };
  if (metric == "Duration")
    set_once(kernel.duration);
  else if (metric == "SM Frequency")
    set_once(kernel.sm_frequency);
  else if (metric == "Registers Per Thread")
    set_once(kernel.registers);
  else if (metric == "Static Shared Memory Per Block")
    set_once(kernel.static_smem);
  else if (metric == "Dynamic Shared Memory Per Block")
    set_once(kernel.dynamic_smem);
  else if (metric == "Achieved Occupancy")
    set_once(kernel.achieved_occupancy);
  else if (metric == "DRAM Throughput" && value.unit == "%")
    set_once(kernel.dram_throughput);
}

std::string unit_text(const std::string& unit) {
  static const std::map<std::string, std::string> shorter{
      {"nsecond", "ns"},        {"usecond", "us"},        {"msecond", "ms"},     {"second", "s"},
      {"cycle/nsecond", "GHz"}, {"cycle/usecond", "MHz"}, {"Ghz", "GHz"},        {"Mhz", "MHz"},
      {"byte/block", "B"},      {"Kbyte/block", "KB"},    {"Mbyte/block", "MB"}, {"register/thread", ""}};
  const auto found = shorter.find(unit);
  return found == shorter.end() ? unit : found->second;
}

std::string shown(const NcuValue& v) {
  const std::string unit = unit_text(v.unit);
  return v.value + (unit.empty() || unit == "%" ? unit : " " + unit);
}

std::string percent_list(const std::vector<std::pair<std::string, double>>& items, const char* format) {
  std::string text;
  for (const auto& [name, value] : items) {
    char number_text[32];
    std::snprintf(number_text, sizeof number_text, format, value);
    text += (text.empty() ? "" : ", ") + name + " " + number_text;
  }
  return text;
}

}  // namespace

std::vector<KernelProfile> read_ncu_details(const std::string& csv) {
  const std::vector<Row> rows = csv_rows(csv);
  const std::size_t header = header_row(rows, "details");
  const auto at = columns(rows[header]);
  const std::size_t id = column(at, "ID", "details"), kernel = column(at, "Kernel Name", "details"),
                    grid = column(at, "Grid Size", "details"), block = column(at, "Block Size", "details"),
                    metric = column(at, "Metric Name", "details"),
                    unit = column(at, "Metric Unit", "details"),
                    value = column(at, "Metric Value", "details");
  std::vector<KernelProfile> kernels;
  for (std::size_t r = header + 1; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (field(row, id).empty()) continue;
    auto known = std::find_if(kernels.begin(), kernels.end(),
                              [&](const KernelProfile& k) { return k.id == field(row, id); });
    if (known == kernels.end()) {
      KernelProfile found;
      found.id = field(row, id);
      found.kernel = field(row, kernel);
      found.grid = field(row, grid);
      found.block = field(row, block);
      kernels.push_back(std::move(found));
      known = kernels.end() - 1;
    }
    set_details_metric(*known, field(row, metric), {field(row, value), field(row, unit)});
  }
  return kernels;
}

void add_ncu_raw_metrics(std::vector<KernelProfile>& kernels, const std::string& csv) {
  const std::vector<Row> rows = csv_rows(csv);
  const std::size_t header = header_row(rows, "raw");
  const Row& names = rows[header];
  const std::size_t id = column(columns(names), "ID", "raw");
  // sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active, ..._gmma_... (sm_90), ...
  static const std::regex tensor_pipe(
      R"(sm__pipe_tensor_(?:op_)?(\w*?)_?cycles_active\.avg\.pct_of_peak_sustained_active)");
  // smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio: cycles per issued instruction.
  static const std::regex stall(R"(smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio)");
  for (std::size_t r = header + 1; r < rows.size(); ++r) {
    const Row& row = rows[r];
    const auto kernel = std::find_if(kernels.begin(), kernels.end(),
                                     [&](const KernelProfile& k) { return k.id == field(row, id); });
    if (field(row, id).empty() || kernel == kernels.end()) continue;  // the row of units, or another kernel
    std::vector<std::pair<std::string, double>> stalls;
    for (std::size_t c = 0; c < names.size(); ++c) {
      std::smatch match;
      const std::optional<double> value = number(field(row, c));
      if (!value) continue;
      if (std::regex_match(names[c], match, tensor_pipe))
        kernel->tensor_pipes.emplace_back(match[1].length() > 0 ? match[1].str() : "tensor", *value);
      else if (std::regex_match(names[c], match, stall) && match[1] != "selected" && *value > 0)
        stalls.emplace_back(match[1].str(), *value);
    }
    std::stable_sort(stalls.begin(), stalls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (stalls.size() > 3) stalls.resize(3);
    kernel->top_stalls = std::move(stalls);
  }
}

std::string format_kernel_profiles(const std::vector<KernelProfile>& kernels) {
  std::ostringstream out;
  for (const KernelProfile& k : kernels) {
    out << k.kernel << "  grid " << k.grid << "  block " << k.block << "\n";
    std::vector<std::string> parts;
    if (!k.duration.value.empty())
      parts.push_back(shown(k.duration) +
                      (k.sm_frequency.value.empty() ? "" : " at " + shown(k.sm_frequency) + " (SM)"));
    if (!k.registers.value.empty()) parts.push_back(k.registers.value + " registers/thread");
    if (!k.dynamic_smem.value.empty() || !k.static_smem.value.empty())
      parts.push_back("shared memory/block " + (k.dynamic_smem.value.empty() ? "?" : shown(k.dynamic_smem)) +
                      " dynamic + " + (k.static_smem.value.empty() ? "?" : shown(k.static_smem)) + " static");
    if (!k.achieved_occupancy.value.empty())
      parts.push_back("achieved occupancy " + shown(k.achieved_occupancy));
    if (!k.dram_throughput.value.empty()) parts.push_back("DRAM throughput " + shown(k.dram_throughput));
    if (!k.tensor_pipes.empty()) parts.push_back("tensor pipes " + percent_list(k.tensor_pipes, "%.1f%%"));
    for (const auto& part : parts) out << "  " << part << "\n";
    if (!k.top_stalls.empty())
      out << "  top stalls (cycles per issued instruction) " << percent_list(k.top_stalls, "%.2f") << "\n";
  }
  return out.str();
}

}  // namespace evotune
