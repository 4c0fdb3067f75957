// One kernel file, one isolated GPU worker, one job: the same path a tuned variant takes.
#include "tools/kernel_file_eval.hpp"

#include <fstream>
#include <iterator>

#include "compile/compiler.hpp"
#include "compile/ptxas_log.hpp"
#include "core/error.hpp"
#include "eval/device_query.hpp"
#include "gen/kernel_source.hpp"
#include "session/launch_timeout.hpp"
#include "session/worker_setup.hpp"
#include "space/problem_text.hpp"
#include "space/search_space.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot read the kernel file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every tuning parameter: its value in `text` (NAME=VALUE, comma separated) or its first value.
Config params_from(const SearchSpace& space, const std::string& text) {
  std::vector<SizeSpec> specs;
  for (const auto& parameter : space.parameters()) {
    SizeSpec spec;
    spec.name = parameter.name;
    spec.default_value = parameter.values.front();
    spec.allowed = parameter.values;
    specs.push_back(spec);
  }
  try {
    return resolve_sizes(specs, text);
  } catch (const Error& e) {
    throw Error(std::string("--params: ") + e.what());
  }
}

CompileResult compile_or_throw_setup(const Compiler& compiler, const CompileRequest& request,
                                     bool reference) {
  CompileResult result = compiler.compile(request);
  if (reference && result.status != Status::ok)
    throw Error("the reference kernel does not compile: " + result.message);
  return result;
}

Outcome run_one_job(WorkerPool& pool, JobMessage message, const EvalSettings& eval, double reference_ms,
                    int extra_rounds) {
  TimeoutPolicy policy;
  policy.ceiling_ms = eval.timeout_ms;
  const LaunchLimit limit = launch_limit(policy, reference_ms, std::nullopt);
  message.ticket = 1;
  message.launch_limit_ms = limit.per_launch_ms;
  message.limit_basis = limit.basis;
  pool.submit({std::move(message), job_deadline_ms(limit, eval, extra_rounds)});
  for (;;)
    for (auto& done : pool.collect(std::chrono::milliseconds(100))) return std::move(done.outcome);
}

}  // namespace

KernelFileResult evaluate_kernel_file(const KernelFileRequest& request) {
  const SearchSpace space = SearchSpace::load(request.space_file);
  KernelFileResult result;
  result.space = space.name();
  result.problem = space.resolve_problem(request.problem);
  result.params = params_from(space, request.params);
  const std::string source = read_text(request.kernel_file);
  const int gpus = gpu_count();
  if (gpus == 0) throw Error("evotune eval needs a GPU: " + no_gpu_reason());
  if (request.device < 0 || request.device >= gpus)
    throw Error("--device " + std::to_string(request.device) + ": no such GPU (" + std::to_string(gpus) +
                " found)");
  result.device = query_gpu(request.device);
  result.arch = result.device.arch() + space.arch_suffix();
  result.kernel_name = request.kernel_name.empty() ? space.kernel().name : request.kernel_name;

  const Compiler compiler(cuda_include_dirs());
  const auto& reference = space.reference();
  const KernelSource reference_source =
      render_source(space.reference_source(), reference.file.filename().string(),
                    space.reference_constants(result.problem), true, reference.file.parent_path());
  const CompileResult reference_compiled =
      compile_or_throw_setup(compiler,
                             {reference_source.text, reference.file.filename().string(), reference.name,
                              result.arch, space.compiler_options()},
                             true);
  std::optional<CompileResult> derived_compiled;
  if (const KernelDecl* derived = space.derived_inputs()) {
    const KernelSource derived_source =
        render_source(space.derived_inputs_source(), derived->file.filename().string(),
                      space.derived_inputs_constants(result.problem), true, derived->file.parent_path());
    derived_compiled = compiler.compile({derived_source.text, derived->file.filename().string(),
                                         derived->name, result.arch, space.compiler_options()});
    if (derived_compiled->status != Status::ok)
      throw Error(
          "the DerivedInputs kernel does not compile (an error of the space, not of the kernel file): " +
          derived_compiled->message);
  }
  const KernelSource variant_source = render_source(
      source, request.kernel_file.filename().string(),
      space.compile_time_constants(result.params, result.problem), true, request.kernel_file.parent_path());
  // Resources as a tuned variant's: a space of several launches reports its worst kernel
  // (variant_compiler.cpp).
  const bool worst_kernel = request.kernel_name.empty() && space.launches().size() > 1;
  const CompileResult compiled =
      compile_or_throw_setup(compiler,
                             {variant_source.text, request.kernel_file.filename().string(),
                              worst_kernel ? "" : result.kernel_name, result.arch, space.compiler_options()},
                             false);
  if (compiled.status != Status::ok) {
    result.outcome.status = compiled.status;
    result.outcome.message = compiled.message;
    result.outcome.compile = compiled.info;
    return result;
  }

  // Exact-size buffers (evotune sanitize) are allocated for the main problem alone: an extra problem's larger
  // counts would leave room past the main problem's end.
  const bool extra_problems = request.eval.guard_margins;
  WorkerPool pool(
      request.worker_command,
      gpu_worker_setups({request.device}, space.buffers(result.problem),
                        {reference_compiled.cubin, space.reference_launch(result.problem, result.device)},
                        space.tolerances(), request.eval, compiler.include_dirs(),
                        extra_problems ? extra_problem_setups(space, result.problem, result.device)
                                       : std::vector<ExtraProblem>{},
                        derived_inputs_setup(space, derived_compiled ? derived_compiled->cubin : "",
                                             result.problem, result.device)));
  result.reference_ms = pool.ready(0).reference_ms;
  // --kernel-name renames the first launch only; the others keep the names the space gives them.
  LaunchSpec launch = space.variant_launch(result.params, result.problem, result.device);
  if (!request.kernel_name.empty()) launch.kernel_name = request.kernel_name;
  JobMessage message;
  message.config = result.params;
  message.validation_seed = request.seed;
  message.deterministic = space.deterministic(result.params, result.problem, result.device);
  for (LaunchSpec extra : extra_problems
                              ? extra_variant_launches(space, result.params, result.problem, result.device)
                              : std::vector<LaunchSpec>{}) {
    if (!request.kernel_name.empty()) extra.kernel_name = request.kernel_name;
    message.extra_launches.push_back(std::move(extra));
  }
  const auto per_kernel = parse_ptxas_functions(compiled.info.log);
  for (const LaunchSpec* step : launch_steps(launch)) {
    const CompileInfo* found = find_function(per_kernel, step->kernel_name);
    result.launched.push_back({step->kernel_name, found == nullptr ? CompileInfo{} : *found,
                               runs_programmatic(*step, result.device.cc_major)});
  }
  message.kernel = CompiledKernel{compiled.cubin, std::move(launch)};
  result.outcome = run_one_job(pool, std::move(message), request.eval, result.reference_ms,
                               extra_validation_rounds(space, result.problem));
  result.outcome.compile = compiled.info;
  if (result.outcome.timing && result.outcome.timing->median_us > 0) {
    const double seconds = result.outcome.timing->median_us * 1e-6;
    result.tflops = space.flops(result.problem) / seconds / 1e12;
    result.gbps = space.bytes(result.problem) / seconds / 1e9;
  }
  return result;
}

}  // namespace evotune
