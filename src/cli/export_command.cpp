// `evotune export SPACE -o FILE.cu`: the best (or a chosen) variant as a standalone .cu. Needs no GPU.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <limits>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "session/export_variant.hpp"

namespace evotune::cli {
namespace {

struct ExportOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  std::string output;
  long long config_id = 0;
  std::string arch = "sm_90";
};

RankedResult choose(const StoredSpace& stored, long long config_id) {
  const auto results = stored.best(std::numeric_limits<int>::max(), true);
  for (const auto& result : results) {
    if (config_id == 0 && result.status == Status::ok) return result;
    if (config_id != 0 && result.config_id == config_id) return result;
  }
  if (config_id == 0) throw Error("no working variant stored for this space and problem: nothing to export");
  throw Error("config " + std::to_string(config_id) + " has no result for " + stored.space.name() +
              " (this version) with problem " + key_value_text(stored.sizes));
}

std::string header(const StoredSpace& stored, const RankedResult& chosen) {
  char timing[160] = "not timed";
  if (chosen.timing)
    std::snprintf(timing, sizeof timing, "median %.2f us (p20 %.2f, p80 %.2f, %d samples), %.1f TFLOP/s",
                  chosen.timing->median_us, chosen.timing->p20_us, chosen.timing->p80_us,
                  chosen.timing->samples, chosen.tflops);
  std::string text = "// Exported by evotune\n";
  text += "// space:   " + stored.space.name() + " (" + stored.space.path().string() + ", hash " +
          stored.space.hash() + ")\n";
  text += "// config:  #" + std::to_string(chosen.config_id) + " " + canonical_json(chosen.params) + "\n";
  text += "// problem: " + key_value_text(stored.sizes) + "\n";
  text += "// device:  " + chosen.device_name + "\n";
  text += "// result:  " + std::string(to_string(chosen.status)) + ", " + timing + "\n";
  text += "// build:   nvcc -arch=sm_XY -c <this file>\n";
  return text;
}

void run(const ExportOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  const RankedResult chosen = choose(stored, options.config_id);
  if (chosen.status != Status::ok)
    spdlog::warn("config {} did not pass ({}): exporting it anyway", chosen.config_id,
                 to_string(chosen.status));
  const std::string text = render_export(stored.space, stored.sizes, chosen.params,
                                         offline_device(options.arch), header(stored, chosen));
  write_output_file(options.output, text);
  std::printf("wrote %s: config %lld, %s\n", options.output.c_str(), static_cast<long long>(chosen.config_id),
              canonical_json(chosen.params).c_str());
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("export", "Write a stored variant as a standalone .cu with a host launcher");
  auto options = std::make_shared<ExportOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--config", options->config_id, "Config id (default: the fastest working one)");
  command->add_option("-o,--output", options->output, "Output .cu file")->required();
  command->add_option("--arch", options->arch, "Device limits for geometry expressions that read DEVICE_*")
      ->capture_default_str();
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
