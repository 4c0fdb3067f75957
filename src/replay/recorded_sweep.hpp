// RecordedSweep: every stored result of one space version, problem and device, as a diffable JSON file
// (format: docs/recorded-sweeps.md). What the replay objective answers from, in place of the GPU.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/outcome.hpp"
#include "core/status.hpp"

namespace evotune {

// The format tag every sweep file starts with; a new layout gets a new tag.
inline constexpr const char* kSweepFormat = "evotune-sweep-v1";

struct RecordedResult {
  Config params;
  Status status = Status::ok;
  std::string message;                // the reason when status != ok
  std::optional<TimingStats> timing;  // present exactly for ok results
};

struct RecordedSweep {
  std::string space_name;
  std::string space_hash;
  Sizes problem;
  DeviceInfo device;  // enough to evaluate the space's constraints as the tuner did
  std::string nvrtc_version;
  std::vector<RecordedResult> results;  // the file holds them sorted by canonical_json(params)
};

// The device's limits that are 0 (the store keeps only some of them) filled from offline_device(arch);
// unchanged when no limits are known for the arch.
DeviceInfo with_offline_limits(DeviceInfo device);

// The file's text: a header object, then "results" with exactly one result per line, sorted by
// canonical_json(params). Same sweep, same bytes. Throws Error for a non-finite time.
std::string sweep_text(const RecordedSweep& sweep);
void save_sweep(const RecordedSweep& sweep, const std::filesystem::path& file);  // throws Error

// Parses and checks a sweep file's text. Throws Error "FILE: field.path: what is wrong" for a wrong format
// tag, a missing, unknown or mistyped field, an unknown status, a timing missing on an ok result (or present
// on a failed one) and a config listed twice. Device limits absent from the file come from
// offline_device(arch).
RecordedSweep parse_sweep(const std::string& text, const std::string& file);
RecordedSweep load_sweep(const std::filesystem::path& file);

}  // namespace evotune
