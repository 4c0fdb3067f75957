// `evotune export SPACE -o FILE.cu`: the best (or a chosen) variant as a standalone .cu; with --dispatch,
// every stored problem's winner behind one launcher that picks among them; with --torch DIR, that launcher as
// a PyTorch op (of one space a dtype: `export SPACE_FP16 SPACE_BF16 --torch DIR`; differentiable with its
// backward spaces beside: `export FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR`). Needs no GPU.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "export/export_dispatch.hpp"
#include "export/export_variant.hpp"
#include "export/neighbour_covers.hpp"
#include "export/stored_dispatch.hpp"
#include "export/torch_export.hpp"

namespace evotune::cli {
namespace {

struct ExportOptions {
  std::vector<std::string> space_files;
  std::string problem;
  std::vector<std::string> dbs{kDefaultDb};  // one, or (--torch) one a space
  std::string output;
  long long config_id = 0;
  std::string arch = "sm_90";
  bool dispatch = false;
  std::string torch_dir;
  std::string name;  // the op's; default: the first space's
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

// A C identifier: the op's name is one in torch.ops.evotune and in the extension's name.
bool valid_op_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string dispatch_header(const SearchSpace& space, const DispatchTable& table, const std::string& db) {
  std::string text = "// Exported by evotune: a dispatcher over the stored winners\n";
  text += "// space:   " + space.name() + " (" + space.path().string() + ", hash " + space.hash() + ")\n";
  text += "// results: " + db + "\n";
  for (const auto& [problem, config] : table.problem_winners())
    text += "// tuned:   " + key_value_text(problem) + " -> " + canonical_json(config) + "\n";
  for (const auto& [problem, config] : table.covers())
    text += "// cover:   " + canonical_json(config) + " (measured at " + key_value_text(problem) +
            "; for sizes next to it where no winner runs)\n";
  text += "// build:   nvcc -arch=sm_XY" + space.arch_suffix() + " -std=c++17 -c <this file>\n";
  return text;
}

// The dispatcher of every stored problem's winner of `space`, from `db` (with covers for the sizes next to
// the tuned ones where no winner runs), and how many variants, problems and covers it has.
struct StoredDispatch {
  std::string text;
  std::size_t variants, problems, covers;
};

StoredDispatch stored_dispatch(const SearchSpace& space, const std::string& space_file, const std::string& db,
                               const std::string& arch) {
  const Store store = Store::open_existing(db);
  const std::int64_t space_id = stored_space_id(space, store, space_file, db);
  DispatchTable table = stored_dispatch_table(space, store, space_id);
  const DeviceInfo device = offline_device(arch);
  add_neighbour_covers(space, table, device);
  return {render_dispatch_export(space, table, device, dispatch_header(space, table, db)),
          dispatch_variants(space, table).size(), table.problem_winners().size(), table.covers().size()};
}

// What the export line says of an export's covers: " with N covers", or nothing where it holds none.
std::string with_covers(std::size_t covers) {
  if (covers == 0) return "";
  return " with " + std::to_string(covers) + (covers == 1 ? " cover" : " covers");
}

void run_dispatch(const ExportOptions& options) {
  if (options.config_id != 0 || !options.problem.empty())
    throw Error("--dispatch and --torch export every stored problem's winner: drop --config and --problem");
  if (options.output.empty()) throw Error("export --dispatch needs -o FILE.cu");
  if (options.dbs.size() != 1) throw Error("export --dispatch reads one --db");
  const SearchSpace space = SearchSpace::load(options.space_files.front());
  const auto exported =
      stored_dispatch(space, options.space_files.front(), options.dbs.front(), options.arch);
  write_output_file(options.output, exported.text);
  std::printf("wrote %s: %zu variants for %zu tuned problems%s\n", options.output.c_str(), exported.variants,
              exported.problems, with_covers(exported.covers).c_str());
}

void run_torch(const ExportOptions& options) {
  if (options.config_id != 0 || !options.problem.empty())
    throw Error("--dispatch and --torch export every stored problem's winner: drop --config and --problem");
  if (!options.output.empty())
    throw Error("--torch writes a folder: drop -o (or export --dispatch separately)");
  const auto& files = options.space_files;
  if (options.dbs.size() != 1 && options.dbs.size() != files.size())
    throw Error("--torch reads one --db for every space, or one --db a space (" +
                std::to_string(files.size()) + " spaces, " + std::to_string(options.dbs.size()) + " --db)");
  std::vector<SearchSpace> spaces;
  for (const auto& file : files) spaces.push_back(SearchSpace::load(file));
  std::vector<const SearchSpace*> pointers;
  for (const auto& space : spaces) pointers.push_back(&space);
  const TorchOpPlan plan = require_torch_spaces(pointers);  // refused before any database is read
  const std::string name = options.name.empty() ? dispatch_symbol_prefix(spaces.front()) : options.name;
  if (!valid_op_name(name)) throw Error("--name " + name + " is not a C identifier");

  std::vector<StoredDispatch> exported;
  std::vector<TorchOpSpace> inputs;
  for (std::size_t i = 0; i < files.size(); ++i)
    exported.push_back(
        stored_dispatch(spaces[i], files[i], options.dbs[options.dbs.size() == 1 ? 0 : i], options.arch));
  for (std::size_t i = 0; i < files.size(); ++i) inputs.push_back({&spaces[i], exported[i].text});
  const std::filesystem::path dir = options.torch_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw Error("cannot create the folder " + dir.string() + (error ? ": " + error.message() : ""));
  for (const auto& [file, content] : torch_op_files(inputs, name, options.arch)) {
    write_output_file(dir / file, content);
    if (file.size() > 3 && file.substr(file.size() - 3) == ".sh")
      std::filesystem::permissions(dir / file,
                                   std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                                       std::filesystem::perms::others_exec,
                                   std::filesystem::perm_options::add);
  }
  std::string tuned;
  for (std::size_t i = 0; i < files.size(); ++i)
    tuned += (tuned.empty() ? "" : ", ") + spaces[i].name() + ": " + std::to_string(exported[i].variants) +
             " variants for " + std::to_string(exported[i].problems) + " tuned problems" +
             with_covers(exported[i].covers);
  const std::string backward =
      plan.backward ? ", differentiable (its backward from the " + plan.backward->name + " spaces)"
                    : ", not differentiable (no backward spaces given)";
  std::printf(
      "wrote %s: the %s op evotune::%s (%s)%s; in Python: sys.path.insert(0, \"%s\"); import load; op = "
      "load.build()\n",
      dir.string().c_str(), plan.family->name.c_str(), name.c_str(), tuned.c_str(), backward.c_str(),
      dir.string().c_str());
}

void run(const ExportOptions& options) {
  if (!options.torch_dir.empty()) return run_torch(options);
  if (options.space_files.size() != 1)
    throw Error("export takes one space (several only with --torch: one space a dtype, one op)");
  if (options.dispatch) return run_dispatch(options);
  if (options.output.empty()) throw Error("export needs -o FILE.cu (or --torch DIR)");
  if (options.dbs.size() != 1) throw Error("export reads one --db");
  const StoredSpace stored =
      open_stored_space(options.space_files.front(), options.problem, options.dbs.front());
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
  command
      ->add_option("space", options->space_files,
                   "Search-space JSON file (with --torch, several: one space a dtype, dispatched on the "
                   "inputs' dtype by one op; backward spaces among them, recognised by their buffers, one "
                   "a dtype too, make the op differentiable)")
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
                      "Write the dispatchers as one PyTorch op into this folder (binding.cpp, load.py, "
                      "build_so.sh); FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR gives it a backward");
  command->add_option("--name", options->name, "The --torch op's name (default: the first space's name)");
  command->add_option("--arch", options->arch, "Device limits for geometry expressions that read DEVICE_*")
      ->capture_default_str();
  command
      ->add_option("--db", options->dbs,
                   "Results database (with --torch, one for every space or one a space)")
      ->capture_default_str();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
