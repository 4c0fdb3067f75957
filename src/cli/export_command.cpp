// `evotune export SPACE -o FILE.cu`: the best (or a chosen) variant as a standalone .cu; with --dispatch,
// every stored problem's winner behind one launcher that picks among them; with --torch DIR, that launcher as
// a PyTorch op. Needs no GPU.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "export/export_dispatch.hpp"
#include "export/export_variant.hpp"
#include "export/stored_dispatch.hpp"
#include "export/torch_export.hpp"

namespace evotune::cli {
namespace {

struct ExportOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  std::string output;
  long long config_id = 0;
  std::string arch = "sm_90";
  bool dispatch = false;
  std::string torch_dir;
};

RankedResult choose(const StoredSpace& stored, long long config_id) {
  const auto results = stored.best({.include_failed = true});  // every result: top_k 0 is all
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

std::string dispatch_header(const SearchSpace& space, const DispatchTable& table, const std::string& db) {
  std::string text = "// Exported by evotune: a dispatcher over the stored winners\n";
  text += "// space:   " + space.name() + " (" + space.path().string() + ", hash " + space.hash() + ")\n";
  text += "// results: " + db + "\n";
  for (const auto& [problem, config] : table.problem_winners())
    text += "// tuned:   " + key_value_text(problem) + " -> " + canonical_json(config) + "\n";
  text += "// build:   nvcc -arch=sm_XY" + space.arch_suffix() + " -std=c++17 -c <this file>\n";
  return text;
}

void run_dispatch(const ExportOptions& options) {
  if (options.config_id != 0 || !options.problem.empty())
    throw Error("--dispatch and --torch export every stored problem's winner: drop --config and --problem");
  if (options.torch_dir.empty() && options.output.empty()) throw Error("export --dispatch needs -o FILE.cu");
  const SearchSpace space = SearchSpace::load(options.space_file);
  if (!options.torch_dir.empty()) require_attention_space(space);
  const Store store = Store::open_existing(options.db);
  const std::int64_t space_id = stored_space_id(space, store, options.space_file, options.db);
  const DispatchTable table = stored_dispatch_table(space, store, space_id);
  const std::string text = render_dispatch_export(space, table, offline_device(options.arch),
                                                  dispatch_header(space, table, options.db));
  const auto variants = dispatch_variants(space, table);
  if (!options.output.empty()) {
    write_output_file(options.output, text);
    std::printf("wrote %s: %zu variants for %zu tuned problems\n", options.output.c_str(), variants.size(),
                table.problem_winners().size());
  }
  if (options.torch_dir.empty()) return;
  const std::filesystem::path dir = options.torch_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw Error("cannot create the folder " + dir.string() + (error ? ": " + error.message() : ""));
  for (const auto& [name, content] : torch_op_files(space, text, options.arch)) {
    write_output_file(dir / name, content);
    if (name.size() > 3 && name.substr(name.size() - 3) == ".sh")
      std::filesystem::permissions(dir / name,
                                   std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                                       std::filesystem::perms::others_exec,
                                   std::filesystem::perm_options::add);
  }
  std::printf(
      "wrote %s: the op evotune::%s (%zu variants for %zu tuned problems); in Python: "
      "sys.path.insert(0, \"%s\"); import load; op = load.build()\n",
      dir.string().c_str(), dispatch_symbol_prefix(space).c_str(), variants.size(),
      table.problem_winners().size(), dir.string().c_str());
}

void run(const ExportOptions& options) {
  if (options.dispatch || !options.torch_dir.empty()) return run_dispatch(options);
  if (options.output.empty()) throw Error("export needs -o FILE.cu (or --torch DIR)");
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
  command->add_option("-o,--output", options->output, "Output .cu file");
  command->add_flag(
      "--dispatch", options->dispatch,
      "Every stored problem's winner in one file, behind <space>_dispatch(...), which picks the "
      "exact tuned problem's, else the nearest tuned problem's of the same compile-time sizes, "
      "else the most robust one");
  command->add_option("--torch", options->torch_dir,
                      "Write the dispatcher as a PyTorch op into this folder (binding.cpp, load.py, "
                      "build_so.sh)");
  command->add_option("--arch", options->arch, "Device limits for geometry expressions that read DEVICE_*")
      ->capture_default_str();
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
