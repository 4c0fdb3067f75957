// `evotune record SPACE -o FILE`: every stored result of a space version, problem and device as a sweep file
// (docs/recorded-sweeps.md), which `bench-strategies` replays. Needs no GPU.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "replay/recorded_sweep.hpp"
#include "replay/t4_results.hpp"

namespace evotune::cli {
namespace {

struct RecordOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  std::string device;
  std::string output;
  bool t4 = false;
};

std::string describe(const DeviceMeasurements& row) {
  const StoredDevice& device = row.device;
  return "'" + device.info.name + "' (" + device.info.arch() + ", driver " +
         std::to_string(device.info.driver_version) + ", NVRTC " + device.nvrtc_version +
         "): " + std::to_string(row.measurements) + " measurements";
}

std::string describe_all(const std::vector<DeviceMeasurements>& rows) {
  std::string text;
  for (const auto& row : rows) text += (text.empty() ? "" : "; ") + describe(row);
  return text;
}

// The device asked for, or the one with the most measurements; rows come most measurements first.
const DeviceMeasurements& choose_device(const std::vector<DeviceMeasurements>& rows,
                                        const std::string& wanted, const std::string& what) {
  if (rows.empty()) throw Error("no measurements of " + what);
  if (wanted.empty()) {
    if (rows.size() > 1)
      spdlog::info(
          "{} devices have measurements of {}; recording the one with the most (--device picks "
          "another): {}",
          rows.size(), what, describe_all(rows));
    return rows.front();
  }
  const DeviceMeasurements* chosen = nullptr;
  int matches = 0;
  for (const auto& row : rows) {
    if (row.device.info.name != wanted) continue;
    if (!chosen) chosen = &row;
    ++matches;
  }
  if (!chosen)
    throw Error("no measurements of " + what + " on a device named '" + wanted +
                "'; devices with some: " + describe_all(rows));
  if (matches > 1)
    spdlog::info(
        "{} device rows named '{}' (other driver or NVRTC versions); recording the one with the most",
        matches, wanted);
  return *chosen;
}

void run(const RecordOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  const std::string what = stored.space.name() + " (version " + stored.space.hash() + ") with problem " +
                           key_value_text(stored.sizes) + " in " + options.db;
  const auto rows = stored.store.measured_devices(*stored.space_id, *stored.problem_id);
  const DeviceMeasurements& chosen = choose_device(rows, options.device, what);

  RecordedSweep sweep;
  sweep.space_name = stored.space.name();
  sweep.space_hash = stored.space.hash();
  sweep.problem = stored.sizes;
  sweep.device = with_offline_limits(chosen.device.info);
  sweep.nvrtc_version = chosen.device.nvrtc_version;
  std::int64_t ok = 0;
  const BestQuery everything{.space_id = *stored.space_id,
                             .problem_id = *stored.problem_id,
                             .device_id = chosen.device.id,
                             .include_failed = true};
  for (const auto& result : stored.store.best(everything)) {
    sweep.results.push_back({result.params, result.status, result.message, result.timing});
    if (result.status == Status::ok) ++ok;
  }
  if (options.t4)
    write_output_file(options.output, t4_results(sweep).dump(2) + "\n");
  else
    save_sweep(sweep, options.output);
  std::printf("wrote %s%s: %zu results (%lld ok) of %s (%s), problem %s, device %s\n", options.output.c_str(),
              options.t4 ? " (T4)" : "", sweep.results.size(), static_cast<long long>(ok),
              sweep.space_name.c_str(), sweep.space_hash.c_str(), key_value_text(sweep.problem).c_str(),
              sweep.device.name.c_str());
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "record", "Write every stored result of a space, problem and device to a sweep file for replay");
  auto options = std::make_shared<RecordOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->add_option("--device", options->device,
                      "Device name as stored (default: the one with the most measurements)");
  command->add_option("-o,--output", options->output, "Sweep file to write")->required();
  command->add_flag("--t4", options->t4,
                    "Write the community's T4 results format (Kernel Tuner's) instead of a sweep file");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
