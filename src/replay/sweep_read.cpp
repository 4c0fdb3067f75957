// Reading sweep files: every field checked, every error one line naming the file and the field.
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "core/core_json.hpp"
#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {
namespace {

using json = nlohmann::json;

RecordedResult read_result(const Fields& result) {
  result.only({"params", "status", "message", "timing"});
  RecordedResult recorded;
  recorded.params = result.int_map("params");
  recorded.status = status_from_json(result, "status");
  if (result.has("message")) recorded.message = result.text("message");
  const bool ok = recorded.status == Status::ok;
  if (ok) recorded.timing = timing_from_json(result.object("timing"));
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
  // Not a recorded sweep at all (a search space given to --replay, say): said as such, not as a missing
  // field.
  if (!document.is_object() || !document.contains("format"))
    throw Error(file + ": not a recorded sweep (no \"format\": \"" + std::string(kSweepFormat) +
                "\"; `evotune record` writes one)");
  const Fields top(document, "", file);
  const std::string format = top.text("format");
  if (format != kSweepFormat)
    top.fail("format", "expected \"" + std::string(kSweepFormat) + "\", got \"" + format + "\"");
  top.only({"format", "space", "space_hash", "problem", "device", "nvrtc_version", "results"});
  RecordedSweep sweep;
  sweep.space_name = top.text("space");
  sweep.space_hash = top.text("space_hash");
  sweep.problem = top.int_map("problem");
  sweep.device = with_offline_limits(device_from_json(top.object("device")));
  sweep.nvrtc_version = top.text("nvrtc_version");
  std::set<std::string> seen;
  for (const Fields& line : top.objects("results")) {
    RecordedResult result = read_result(line);
    if (!seen.insert(canonical_json(result.params)).second)
      line.fail(line.name("params"), canonical_json(result.params) + " is listed twice");
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
