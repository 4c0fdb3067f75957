// Writing sweep files: one result per line, sorted, so two sweeps diff line by line.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/core_json.hpp"
#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {
namespace {

using ordered_json = nlohmann::ordered_json;

// Compact, and never throwing on a message that is not valid UTF-8 (compiler logs can hold anything).
std::string dump(const ordered_json& value) {
  return value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

// The core serialiser's timing, refusing what JSON text cannot hold.
ordered_json timing_json(const TimingStats& timing, const std::string& params) {
  ordered_json json = to_json(timing);
  for (const auto& [name, value] : json.items())
    if (value.is_number_float() && !std::isfinite(value.get<double>()))
      throw Error("recorded result " + params + ": " + name + " is not a finite number");
  return json;
}

// params first, so sorted lines read (and diff) by config.
std::string result_line(const RecordedResult& result, const std::string& params) {
  ordered_json line = {{"params", ordered_json::parse(params)}, {"status", to_string(result.status)}};
  if (!result.message.empty()) line["message"] = result.message;
  if (result.timing) line["timing"] = timing_json(*result.timing, params);
  return dump(line);
}

}  // namespace

DeviceInfo with_offline_limits(DeviceInfo device) {
  DeviceInfo known;
  try {
    known = offline_device(device.arch());
  } catch (const Error&) {
    return device;
  }
  auto fill = [](auto& field, auto value) {
    if (field == 0) field = value;
  };
  fill(device.sm_count, known.sm_count);
  fill(device.l2_bytes, known.l2_bytes);
  fill(device.global_mem_bytes, known.global_mem_bytes);
  fill(device.max_threads_per_block, known.max_threads_per_block);
  fill(device.max_smem_per_block, known.max_smem_per_block);
  fill(device.smem_per_sm, known.smem_per_sm);
  fill(device.regs_per_block, known.regs_per_block);
  fill(device.regs_per_sm, known.regs_per_sm);
  fill(device.warp_size, known.warp_size);
  return device;
}

std::string sweep_text(const RecordedSweep& sweep) {
  std::vector<std::pair<std::string, const RecordedResult*>> sorted;
  for (const auto& result : sweep.results) sorted.emplace_back(canonical_json(result.params), &result);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text = "{\n";
  text += "  \"format\": " + dump(kSweepFormat) + ",\n";
  text += "  \"space\": " + dump(sweep.space_name) + ",\n";
  text += "  \"space_hash\": " + dump(sweep.space_hash) + ",\n";
  text += "  \"problem\": " + canonical_json(sweep.problem) + ",\n";
  text += "  \"device\": " + dump(to_json(sweep.device)) + ",\n";
  text += "  \"nvrtc_version\": " + dump(sweep.nvrtc_version) + ",\n";
  text += "  \"results\": [\n";
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i].first == sorted[i - 1].first)
      throw Error("recorded result " + sorted[i].first + " is listed twice");
    text += "    " + result_line(*sorted[i].second, sorted[i].first) + (i + 1 < sorted.size() ? ",\n" : "\n");
  }
  text += "  ]\n}\n";
  return text;
}

void save_sweep(const RecordedSweep& sweep, const std::filesystem::path& file) {
  const std::string text = sweep_text(sweep);
  std::ofstream out(file, std::ios::binary);
  if (!out) throw Error("cannot write " + file.string());
  out << text;
  out.close();
  if (!out) throw Error("cannot write " + file.string());
}

}  // namespace evotune
