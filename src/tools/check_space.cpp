// Compile-only validation of a space: every valid variant must compile, or the space's conditions are wrong.
#include "tools/check_space.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "compile/compiler.hpp"
#include "compile/ptxas_log.hpp"
#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "session/progress.hpp"
#include "session/variant_compiler.hpp"
#include "space/config_sample.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace {

// Why the config's launches could not run its compiled module: a geometry or size expression that does not
// give a valid integer (on the main or an extra problem), or a launch naming a kernel the module lacks.
std::optional<std::string> launch_problem(const SearchSpace& space, const Config& config, const Sizes& sizes,
                                          const DeviceInfo& device, const std::string& log) {
  const auto kernels = parse_ptxas_functions(log);
  std::vector<Sizes> problems{sizes};
  for (const Sizes& extra : space.extra_problems(sizes)) problems.push_back(extra);
  try {
    for (const Sizes& problem : problems) {
      const LaunchSpec launch = space.variant_launch(config, problem, device);
      for (const LaunchSpec* step : launch_steps(launch))
        if (find_function(kernels, step->kernel_name) == nullptr)
          return "a launch names kernel '" + step->kernel_name + "', which the compiled module lacks";
      space.deterministic(config, problem, device);  // an expression that cannot be evaluated throws
    }
  } catch (const SpaceError& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace

CheckReport check_space(const std::filesystem::path& space_file, const std::string& problem,
                        const std::string& arch, int threads, std::size_t sample,
                        const std::vector<std::string>& compile_command, Store* store) {
  const SearchSpace space = SearchSpace::load(space_file);
  const Sizes sizes = space.resolve_problem(problem);
  const DeviceInfo device = offline_device(arch);
  const Compiler compiler(cuda_include_dirs());
  CompileService service(compiler, std::max(1, threads), compile_command);
  CheckReport report;
  report.space_name = space.name();
  report.arch = device.arch() + space.arch_suffix();
  report.problem = key_value_text(sizes);
  report.total_configs = space.total_configs();
  std::vector<Config> configs;
  // Every valid config (enumerate walks a space of too many candidates to test one by one), or a sample.
  if (sample == 0 || report.total_configs <= SearchSpace::kEnumerableCandidates) {
    configs = space.enumerate(sizes, device);
    report.valid_configs = static_cast<std::int64_t>(configs.size());
    if (sample > 0) configs = sample_configs(configs, sample);
  } else {  // too many candidates to hold: counted, and the sample drawn
    std::uint64_t valid = 0;
    configs = space.sample_valid(sample, 0, sizes, device, true, &valid);
    report.valid_configs = static_cast<std::int64_t>(valid);
    if (configs.empty()) space.search_candidates(sizes, device, 0, 1);  // throws: names why none is valid
  }
  report.sampled_configs = static_cast<std::int64_t>(configs.size());

  const auto start = std::chrono::steady_clock::now();
  VariantCompiler variants(space, sizes, report.arch, compiler, service, store);
  Progress progress(report.sampled_configs, isatty(STDERR_FILENO) != 0, "compiled");
  auto tally = [&](const CompiledVariant& variant) {
    const auto& result = variant.result;
    const auto problem = result.status == Status::ok
                             ? launch_problem(space, variant.config, sizes, device, result.info.log)
                             : std::nullopt;
    progress.update(result.status == Status::ok && !problem, std::nullopt, "");
    if (result.status != Status::ok) {
      report.failures.push_back({variant.config, result.status, result.message});
      return;
    }
    if (problem) {
      report.failures.push_back({variant.config, Status::launch_error, *problem});
      return;
    }
    ++report.compiled;
    report.max_registers = std::max(report.max_registers, result.info.registers);
    report.max_spill_bytes = std::max(report.max_spill_bytes, result.info.spill_store_bytes);
    if (result.info.spill_store_bytes > 0)
      report.spills.push_back({variant.config, result.info.spill_store_bytes});
    if (std::string why = wgmma_serialization(result.info.log); !why.empty())
      report.serialized_wgmma.push_back({variant.config, std::move(why)});
  };
  const CompiledVariant reference = variants.compile_reference();
  if (reference.result.status != Status::ok)
    report.failures.push_back({{}, reference.result.status, "reference: " + reference.result.message});
  if (const auto derived = variants.compile_derived_inputs(); derived && derived->result.status != Status::ok)
    report.failures.push_back({{}, derived->result.status, "DerivedInputs: " + derived->result.message});
  else if (derived &&
           !find_function(parse_ptxas_functions(derived->result.info.log), space.derived_inputs()->name))
    report.failures.push_back(
        {{},
         Status::launch_error,
         "DerivedInputs: the compiled module has no kernel '" + space.derived_inputs()->name + "'"});
  try {  // the DerivedInputs launch of the problem and of each extra problem
    space.derived_inputs_launch(sizes, device);
    for (const Sizes& extra : space.extra_problems(sizes)) space.derived_inputs_launch(extra, device);
  } catch (const SpaceError& e) {
    report.failures.push_back({{}, Status::launch_error, std::string("DerivedInputs: ") + e.what()});
  }
  // One compile per compiler and one more queued; each result is taken as soon as it is ready, whatever its
  // place in the order, so that a slow compile holds up no compiler.
  const std::size_t window = static_cast<std::size_t>(std::max(1, threads)) + 1;
  const std::size_t reference_failures = report.failures.size();
  for (const Config& config : configs) {
    if (variants.pending() >= window) tally(*variants.take_first_ready_blocking());
    variants.submit(config);
  }
  while (auto variant = variants.take_first_ready_blocking()) tally(*variant);
  // Failures, spills and serialised wgmmas in the order of the configs, as they were submitted, whichever
  // compile finished first.
  std::map<Config, std::size_t> config_order;
  for (std::size_t i = 0; i < configs.size(); ++i) config_order.emplace(configs[i], i);
  const auto in_config_order = [&config_order](auto first, auto last) {
    std::stable_sort(first, last, [&](const auto& a, const auto& b) {
      return config_order.at(a.config) < config_order.at(b.config);
    });
  };
  in_config_order(report.failures.begin() + static_cast<std::ptrdiff_t>(reference_failures),
                  report.failures.end());
  in_config_order(report.spills.begin(), report.spills.end());
  in_config_order(report.serialized_wgmma.begin(), report.serialized_wgmma.end());
  progress.finish();
  report.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace evotune
