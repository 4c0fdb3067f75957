// Reading sweep files: every field checked, every error one line naming the file and the field.
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {
namespace {

using json = nlohmann::json;

// One JSON object of the file and its path in it ("results[3].timing"), for the error messages.
class Fields {
 public:
  Fields(const json& object, std::string path, const std::string& file)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object()) fail(path_, "expected a JSON object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(file_ + ": " + (field.empty() ? "top level" : field) + ": " + what);
  }
  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  bool has(const std::string& key) const { return object_.contains(key); }
  const json& at(const std::string& key) const {
    if (!has(key)) fail(name(key), "missing");
    return object_.at(key);
  }
  Fields object(const std::string& key) const { return Fields(at(key), name(key), file_); }

  std::string text(const std::string& key) const {
    const json& value = at(key);
    if (!value.is_string()) fail(name(key), "expected a string, got " + value.dump());
    return value.get<std::string>();
  }
  double number(const std::string& key) const {
    const json& value = at(key);
    if (!value.is_number()) fail(name(key), "expected a number, got " + value.dump());
    return value.get<double>();
  }
  std::int64_t integer(const std::string& key, std::int64_t low = 0,
                       std::int64_t high = std::numeric_limits<std::int64_t>::max()) const {
    const json& value = at(key);
    if (!value.is_number_integer()) fail(name(key), "expected an integer, got " + value.dump());
    const auto parsed = value.get<std::int64_t>();
    if (parsed < low || parsed > high)
      fail(name(key), "expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                          "], got " + value.dump());
    return parsed;
  }
  int small_integer(const std::string& key) const {
    return static_cast<int>(integer(key, 0, std::numeric_limits<int>::max()));
  }
  std::map<std::string, std::int64_t> int_map(const std::string& key) const {
    const Fields values = object(key);
    std::map<std::string, std::int64_t> map;
    for (const auto& [entry, value] : values.object_.items())
      map[entry] = values.integer(entry, std::numeric_limits<std::int64_t>::min());
    return map;
  }
  // Unknown fields are errors: a misspelt optional field would otherwise be ignored without a word.
  void only(const std::set<std::string>& known) const {
    for (const auto& [key, value] : object_.items())
      if (!known.contains(key)) fail(name(key), "unknown field");
  }

 private:
  const json& object_;
  std::string path_;
  const std::string& file_;
};

DeviceInfo read_device(const Fields& device) {
  device.only({"name", "arch", "cc_major", "cc_minor", "driver_version", "sm_count", "l2_bytes",
               "max_smem_per_block", "global_mem_bytes", "max_threads_per_block", "smem_per_sm",
               "regs_per_block", "regs_per_sm", "warp_size"});
  DeviceInfo info;
  info.name = device.text("name");
  info.cc_major = device.small_integer("cc_major");
  info.cc_minor = device.small_integer("cc_minor");
  const std::string arch = device.text("arch");
  if (arch != info.arch())
    device.fail(device.name("arch"), "'" + arch + "' does not match cc_major/cc_minor (" + info.arch() + ")");
  info.driver_version = device.small_integer("driver_version");
  info.sm_count = device.small_integer("sm_count");
  info.l2_bytes = device.integer("l2_bytes");
  info.max_smem_per_block = device.small_integer("max_smem_per_block");
  // Limits the results database does not keep: optional, from offline_device(arch) when absent.
  if (device.has("global_mem_bytes")) info.global_mem_bytes = device.integer("global_mem_bytes");
  if (device.has("max_threads_per_block"))
    info.max_threads_per_block = device.small_integer("max_threads_per_block");
  if (device.has("smem_per_sm")) info.smem_per_sm = device.small_integer("smem_per_sm");
  if (device.has("regs_per_block")) info.regs_per_block = device.small_integer("regs_per_block");
  if (device.has("regs_per_sm")) info.regs_per_sm = device.small_integer("regs_per_sm");
  if (device.has("warp_size")) info.warp_size = device.small_integer("warp_size");
  return with_offline_limits(info);
}

TimingStats read_timing(const Fields& timing) {
  timing.only({"median_us", "min_us", "mean_us", "stddev_us", "p20_us", "p80_us", "samples"});
  TimingStats stats;
  stats.median_us = timing.number("median_us");
  stats.min_us = timing.number("min_us");
  stats.mean_us = timing.number("mean_us");
  stats.stddev_us = timing.number("stddev_us");
  stats.p20_us = timing.number("p20_us");
  stats.p80_us = timing.number("p80_us");
  stats.samples = timing.small_integer("samples");
  if (stats.median_us < 0) timing.fail(timing.name("median_us"), "a time cannot be negative");
  return stats;
}

RecordedResult read_result(const Fields& result) {
  result.only({"params", "status", "message", "timing"});
  RecordedResult recorded;
  recorded.params = result.int_map("params");
  const std::string status = result.text("status");
  const auto parsed = status_from_string(status);
  if (!parsed) result.fail(result.name("status"), "unknown status '" + status + "'");
  recorded.status = *parsed;
  if (result.has("message")) recorded.message = result.text("message");
  const bool ok = recorded.status == Status::ok;
  if (ok) recorded.timing = read_timing(result.object("timing"));
  if (!ok && result.has("timing")) result.fail(result.name("timing"), "only ok results have a timing");
  return recorded;
}

}  // namespace

RecordedSweep parse_sweep(const std::string& text, const std::string& file) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(file + ": not valid JSON: " + e.what());
  }
  const Fields top(document, "", file);
  const std::string format = top.text("format");
  if (format != kSweepFormat)
    top.fail("format", "expected \"" + std::string(kSweepFormat) + "\", got \"" + format + "\"");
  top.only({"format", "space", "space_hash", "problem", "device", "nvrtc_version", "results"});
  RecordedSweep sweep;
  sweep.space_name = top.text("space");
  sweep.space_hash = top.text("space_hash");
  sweep.problem = top.int_map("problem");
  sweep.device = read_device(top.object("device"));
  sweep.nvrtc_version = top.text("nvrtc_version");
  const json& results = top.at("results");
  if (!results.is_array()) top.fail("results", "expected an array");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = "results[" + std::to_string(i) + "]";
    RecordedResult result = read_result(Fields(results[i], where, file));
    if (!seen.insert(canonical_json(result.params)).second)
      top.fail(where + ".params", canonical_json(result.params) + " is listed twice");
    sweep.results.push_back(std::move(result));
  }
  return sweep;
}

RecordedSweep load_sweep(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot read the sweep file");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_sweep(text, file.string());
}

}  // namespace evotune
