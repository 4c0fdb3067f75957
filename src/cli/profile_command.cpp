// `evotune profile SPACE --config ID`: a stored variant's timed launch profiled with Nsight Compute; the
// report is kept and a few figures per kernel printed.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "cli/stored_variant_options.hpp"
#include "core/error.hpp"
#include "tools/profile_variant.hpp"

namespace evotune::cli {
namespace {

struct ProfileOptions : StoredVariantOptions {
  std::string set = "full";
  std::string kernel;
  int launch = 1;
  std::string output;
  std::string ncu;
  std::string export_details;
  bool as_timed = false;
};

// results/profiles/SPACE_CONFIG_B1_H8_S512.ncu-rep
std::string default_report(const std::string& space, long long config_id, const Sizes& sizes) {
  std::string problem = key_value_text(sizes, '_');
  std::erase(problem, '=');
  return "results/profiles/" + space + "_" + std::to_string(config_id) + "_" + problem + ".ncu-rep";
}

void run(const ProfileOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  ProfileRequest request;
  static_cast<VariantEval&>(request) = stored_variant_eval(options, stored);
  request.set = options.set;
  request.kernel = options.kernel;
  request.execution = options.launch;
  request.report = ncu_report_path(options.output.empty()
                                       ? default_report(stored.space.name(), options.config_id, stored.sizes)
                                       : options.output);
  request.ncu = options.ncu;
  request.limit = std::chrono::seconds(options.limit_s);
  request.details_text = !options.export_details.empty();
  request.as_timed = options.as_timed;
  const ProfileResult result = profile_variant(request);
  std::printf("config %lld of %s, %s, on %s: ncu --set %s%s, execution %d's launches of %s\n",
              options.config_id, stored.space.name().c_str(), key_value_text(result.problem).c_str(),
              result.device.c_str(), options.set.c_str(),
              options.as_timed ? " as timed (caches warm, clocks free)" : " (caches flushed, clock locked)",
              options.launch, joined(result.launches).c_str());
  std::fputs(format_kernel_profiles(result.kernels).c_str(), stdout);
  if (result.kernels.size() != result.launches.size())
    std::printf("note: the report holds %zu kernels for %zu launches asked for\n", result.kernels.size(),
                result.launches.size());
  if (!options.export_details.empty()) {
    write_output_file(options.export_details, result.details_text);
    std::printf("details page: %s\n", options.export_details.c_str());
  }
  std::printf("report: %s (ncu-ui, or ncu --import %s --page details)\n", result.report.c_str(),
              result.report.c_str());
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "profile", "Profile a stored variant's full-size timed launch with Nsight Compute (ncu; needs a GPU)");
  auto options = std::make_shared<ProfileOptions>();
  options->limit_s = 1800;
  add_stored_variant_options(*command, *options, "Wall-clock limit of the profiled run, in seconds");
  command->add_option("--set", options->set, "ncu's section set")
      ->capture_default_str()
      ->check(CLI::IsMember({kNcuSets[0], kNcuSets[1], kNcuSets[2]}));
  command->add_option("--kernel", options->kernel,
                      "Profile only this kernel of the variant's launches (default: each of them; never the "
                      "reference)");
  command
      ->add_option(
          "--launch", options->launch,
          "Profile the variant's Nth execution in a row (N - 1 untimed ones before it) of eval's timed "
          "phase")
      ->capture_default_str()
      ->check(in_range(1, 1000));
  command->add_option("-o,--output", options->output,
                      "Report file (default: results/profiles/SPACE_CONFIG_PROBLEM.ncu-rep)");
  command->add_option("--ncu", options->ncu, "The ncu program (default: the CUDA toolkit's, then PATH)");
  command->add_option("--export-details", options->export_details,
                      "Also write the details page as text here");
  command->add_flag("--as-timed", options->as_timed,
                    "Profile as the timing method runs the variant: L2 warm from the executions before (pair "
                    "with --launch N) and the clocks free (ncu --cache-control none --clock-control none); "
                    "default: ncu flushes the caches before each kernel and locks the SM clock");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
