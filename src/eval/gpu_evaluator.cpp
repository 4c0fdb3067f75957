// Validation and timing of one variant; recovery of the device after faults and hung kernels.
#include "eval/gpu_evaluator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "cuda/resources.hpp"
#include "eval/compare.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/launch_args.hpp"

namespace evotune {

namespace {

using Clock = std::chrono::steady_clock;

// Static shared memory above this needs no opt-in; dynamic shared memory above it does.
constexpr std::uint32_t kDefaultSmemLimit = 48 * 1024;
// How long a context reset may take after a fault. With a hung kernel, driver 580 blocks the reset until
// the kernel ends (measured on an H100: still blocked after 30 s), so waiting longer there is pointless.
constexpr double kResetLimitMs = 30000;
constexpr double kHungResetLimitMs = 2000;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

GpuEvaluator::GpuEvaluator(int device_ordinal, std::vector<BufferSpec> buffers, CompiledKernel reference,
                           Tolerances tolerances, EvalSettings settings,
                           const std::vector<std::string>& include_dirs,
                           std::vector<ExtraProblem> extra_problems,
                           std::optional<CompiledKernel> derived_inputs)
    : ordinal_(device_ordinal),
      buffers_(std::move(buffers)),
      reference_(std::move(reference)),
      extra_problems_(std::move(extra_problems)),
      derived_inputs_(std::move(derived_inputs)),
      tolerances_(tolerances),
      settings_(settings) {
  settings_.warmup = std::max(settings_.warmup, 0);
  settings_.repetitions = std::max(settings_.repetitions, 0);
  cuda::driver();  // throws the one-line "no driver" error
  const int count = cuda::device_count();
  if (count == 0) throw Error("GPU evaluation impossible: " + cuda::no_device_reason());
  if (ordinal_ < 0 || ordinal_ >= count)
    throw Error("CUDA device " + std::to_string(ordinal_) + " does not exist (" + std::to_string(count) +
                " found)");
  device_ = cuda::query_device(ordinal_);
  builtin_cubin_ = compile_builtin_kernels(include_dirs, device_.arch());
  if (reference_.cubin.empty()) throw Error("the reference kernel has an empty cubin");
  const bool derived_buffers = std::any_of(buffers_.begin(), buffers_.end(), [](const BufferSpec& buffer) {
    return buffer.fill.kind == FillSpec::Kind::derived;
  });
  if (derived_buffers != derived_inputs_.has_value() ||
      std::any_of(extra_problems_.begin(), extra_problems_.end(), [&](const ExtraProblem& problem) {
        return problem.derived_launch.has_value() != derived_inputs_.has_value();
      }))
    throw Error(
        "internal: inputs of FillType derived, a DerivedInputs kernel and its launch for each extra "
        "problem come together");
  const std::string name = "reference kernel '" + reference_.launch.kernel_name + "'";
  bool non_finite = false;
  try {
    build_state();
    if (derived_inputs_) check_derived_inputs();  // throws Error naming it
    run_reference(0);
    for (const auto& output : state_->download_outputs(Role::reference))
      non_finite =
          non_finite || std::any_of(output.begin(), output.end(), [](double v) { return !std::isfinite(v); });
    reference_ms_ = time_reference();
    reference_inputs_.reset();  // timing launches rewrite read-write buffers: validation runs it afresh
  } catch (const Failure& failure) {
    Outcome ignored;
    handle(failure, ignored);
    throw Error(name + " does not run: " + failure.message);
  } catch (const cuda::CudaError& e) {
    throw Error(name + " does not load: " + e.what());
  }
  if (non_finite) spdlog::warn("{} leaves NaN/Inf in its outputs; variants must match them", name);
}

GpuEvaluator::~GpuEvaluator() = default;

void GpuEvaluator::build_state() {
  shared_inputs_.reset();
  const std::size_t scratch = settings_.flush_l2 ? 2 * static_cast<std::size_t>(device_.l2_bytes) : 4;
  std::vector<std::vector<BufferSpec>> other_problems;
  for (const auto& problem : extra_problems_) other_problems.push_back(problem.buffers);
  state_ = std::make_unique<DeviceState>(ordinal_, buffers_, other_problems, builtin_cubin_, reference_.cubin,
                                         reference_.launch.kernel_name, scratch, settings_.repetitions,
                                         settings_.guard_margins);
  check_resources(state_->reference, reference_.launch, "reference kernel");
  if (!derived_inputs_) return;
  try {
    state_->load_derived_inputs(derived_inputs_->cubin, derived_inputs_->launch.kernel_name);
    // Its opt-in to more than 48 KB of dynamic shared memory, in every context (a rebuilt one too).
    check_resources(state_->derived_inputs, derived_inputs_->launch, "DerivedInputs kernel");
  } catch (const cuda::CudaError& e) {
    throw Error("the space's DerivedInputs kernel '" + derived_inputs_->launch.kernel_name +
                "' does not load: " + e.what());
  } catch (const Failure& failure) {
    throw Error(kDerivedInputsSpaceError + failure.message);
  }
}

Outcome GpuEvaluator::evaluate(const CompiledKernel& variant, std::uint64_t validation_seed,
                               const std::vector<LaunchSpec>& extra_launches, bool timing_only,
                               double cut_slow_us) {
  Outcome outcome;
  outcome.validation_seed = validation_seed;
  if (!healthy_) {
    outcome.status = Status::launch_error;
    outcome.message = "GPU evaluator unusable: " + unhealthy_reason_;
    return outcome;
  }
  const auto start = Clock::now();
  shared_inputs_.reset();  // launches since the last validation (timing) ran unchecked
  try {
    state_->context.make_current();
    load_variant(variant);
    variant_steps(variant.launch);  // the resource checks, before the reference runs
    if (!settings_.guard_margins)   // for `evotune sanitize`, which names a faulting address's buffer
      for (const BufferAllocation& allocation : state_->allocations())
        spdlog::info(allocation_line(allocation));
    if (extra_launches.size() != extra_problems_.size())
      throw Error("internal: " + std::to_string(extra_launches.size()) + " extra launches for " +
                  std::to_string(extra_problems_.size()) + " extra problems");
    if (timing_only) {
      prepare_inputs(validation_seed, Role::variant);  // its inputs, unchecked: it was validated before
    } else {
      validate(variant.launch, validation_seed, outcome);
      if (outcome.status == Status::ok) validate_extra_problems(extra_launches, validation_seed, outcome);
      // Timed on the random inputs a timing-only evaluation gets, never on the last validation round's
      // special ones (a constant-zero K, say), which a kernel does not see in use.
      if (outcome.status == Status::ok && special_rounds() > 0)
        prepare_inputs(validation_seed, Role::variant);
    }
    outcome.validate_ms = ms_since(start);
    if (outcome.status == Status::ok) {
      const auto bench_start = Clock::now();
      Measured measured = time_variant(variant.launch, cut_slow_us);
      outcome.timing = measured.timing;
      outcome.energy = measured.energy;
      outcome.bench_ms = ms_since(bench_start);
    }
  } catch (const Failure& failure) {
    handle(failure, outcome);
  } catch (const cuda::CudaError& e) {
    handle({status_of(e.result()), e.what(),
            cuda::is_sticky(e.result()) ? Failure::Reset::sticky : Failure::Reset::none},
           outcome);
  } catch (const std::exception& e) {
    handle({Status::launch_error, e.what()}, outcome);
  }
  if (outcome.validate_ms == 0) outcome.validate_ms = ms_since(start);
  if (healthy_) state_->variant_module = cuda::Module();
  return outcome;
}

void GpuEvaluator::handle(const Failure& failure, Outcome& outcome) {
  outcome.status = failure.status;
  outcome.message = failure.message;
  outcome.timing.reset();
  if (failure.reset != Failure::Reset::none) recover(failure.message, failure.reset == Failure::Reset::hung);
}

void GpuEvaluator::run_reference(std::uint64_t seed, int special, std::size_t problem) {
  const auto inputs = std::make_tuple(seed, special, problem);
  if (reference_inputs_ == inputs) return;
  reference_inputs_.reset();
  const LaunchSpec& reference_launch =
      problem == 0 ? reference_.launch : extra_problems_.at(problem - 1).reference_launch;
  prepare_inputs(seed, Role::reference, special);  // a DerivedInputs failure names that kernel, not this one
  try {
    KernelArgs args = arguments(reference_launch, Role::reference);
    launch(state_->reference, reference_launch, args);
    wait(settings_.timeout_ms, "reference kernel");
    reference_inputs_ = inputs;
  } catch (const Failure& failure) {
    throw Failure{failure.status, "reference kernel: " + failure.message, failure.reset};
  } catch (const cuda::CudaError& e) {
    throw Failure{Status::launch_error, std::string("reference kernel: ") + e.what(),
                  cuda::is_sticky(e.result()) ? Failure::Reset::sticky : Failure::Reset::none};
  }
}

namespace {

// The kernel's parameters (count and sizes, from the driver) against the launch's arguments: what differs, so
// a file that passes other arguments than the kernel takes is told so instead of launching on garbage. The
// driver has no parameter count: the query one past the last argument must fail, an API error that
// compute-sanitizer reports, so `count_past_arguments` false (under `evotune sanitize`) checks only the
// arguments' own parameters.
std::optional<std::string> parameter_mismatch(CUfunction function, const LaunchSpec& launch,
                                              bool count_past_arguments) {
  std::vector<std::size_t> sizes;
  const std::size_t probes = launch.args.size() + (count_past_arguments ? 1 : 0);
  while (sizes.size() < probes) {
    std::size_t offset = 0;
    std::size_t size = 0;
    const CUresult result = cuda::driver().cuFuncGetParamInfo(function, sizes.size(), &offset, &size);
    if (result == CUDA_ERROR_INVALID_VALUE) break;    // past the last parameter
    if (result != CUDA_SUCCESS) return std::nullopt;  // the driver cannot tell (a tool intercepting it)
    sizes.push_back(size);
  }
  if (sizes.size() != launch.args.size()) {
    std::string names;
    for (const ArgSpec& arg : launch.args) names += (names.empty() ? "" : ", ") + arg.name;
    return "takes " + std::string(sizes.size() > launch.args.size() ? "more than " : "") +
           std::to_string(std::min(sizes.size(), launch.args.size())) + " parameters; the launch passes " +
           std::to_string(launch.args.size()) + " arguments (" + names + ")";
  }
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != packed_bytes(launch.args[i]))
      return "parameter " + std::to_string(i + 1) + " is " + std::to_string(sizes[i]) + " bytes; argument '" +
             launch.args[i].name + "' is " + std::to_string(packed_bytes(launch.args[i]));
  return std::nullopt;
}

}  // namespace

void GpuEvaluator::check_resources(CUfunction function, const LaunchSpec& launch, const char* who) const {
  // Without guard margins the variant runs under `evotune sanitize` (EvalSettings::guard_margins).
  if (const auto mismatch = parameter_mismatch(function, launch, settings_.guard_margins))
    throw Failure{Status::launch_error, std::string(who) + " '" + launch.kernel_name + "' " + *mismatch};
  const cuda::FunctionAttributes attributes = cuda::function_attributes(function);
  const std::int64_t smem =
      static_cast<std::int64_t>(attributes.static_smem_bytes) + launch.dynamic_smem_bytes;
  if (smem > device_.max_smem_per_block)
    throw Failure{Status::resource_error,
                  std::string(who) + " needs " + std::to_string(smem) + " bytes of shared memory (" +
                      std::to_string(attributes.static_smem_bytes) + " static + " +
                      std::to_string(launch.dynamic_smem_bytes) + " dynamic); the device allows " +
                      std::to_string(device_.max_smem_per_block)};
  const std::int64_t threads = std::int64_t{launch.block[0]} * launch.block[1] * launch.block[2];
  if (threads > attributes.max_threads_per_block)
    throw Failure{Status::resource_error, std::string(who) + " block of " + std::to_string(threads) +
                                              " threads exceeds the kernel's limit of " +
                                              std::to_string(attributes.max_threads_per_block) + " (" +
                                              std::to_string(attributes.num_regs) + " registers per thread)"};
  // Without the opt-in a launch may use 48 KB of static and dynamic shared memory together, so a kernel with
  // static arrays beside 48 KB of dynamic memory (as the autotuning suite's GEMM asks) needs it too.
  if (smem > kDefaultSmemLimit && launch.dynamic_smem_bytes > 0) {
    const CUresult result =
        cuda::driver().cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(launch.dynamic_smem_bytes));
    if (result != CUDA_SUCCESS)
      throw Failure{Status::resource_error, std::string(who) + ": cuFuncSetAttribute(" +
                                                std::to_string(launch.dynamic_smem_bytes) +
                                                " bytes dynamic shared memory): " + cuda::error_text(result)};
  }
  // After the opt-in above: the occupancy query counts the kernel's dynamic shared memory against its limit.
  check_cluster(function, launch, who);
}

namespace {

bool clustered(const LaunchSpec& launch) { return launch.cluster != std::array<std::uint32_t, 3>{1, 1, 1}; }

std::string dims_text(const std::array<std::uint32_t, 3>& dims) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
}

// cuLaunchKernelEx's configuration of `launch` with no attributes yet.
CUlaunchConfig extended_config(const LaunchSpec& launch, CUstream stream) {
  CUlaunchConfig config{};
  config.gridDimX = launch.grid[0];
  config.gridDimY = launch.grid[1];
  config.gridDimZ = launch.grid[2];
  config.blockDimX = launch.block[0];
  config.blockDimY = launch.block[1];
  config.blockDimZ = launch.block[2];
  config.sharedMemBytes = launch.dynamic_smem_bytes;
  config.hStream = stream;
  return config;
}

CUlaunchAttribute cluster_attribute(const LaunchSpec& launch) {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = launch.cluster[0];
  attribute.value.clusterDim.y = launch.cluster[1];
  attribute.value.clusterDim.z = launch.cluster[2];
  return attribute;
}

CUlaunchAttribute programmatic_attribute() {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  return attribute;
}

// cuLaunchKernelEx's configuration of `launch`, with its cluster attribute (`attribute` must outlive it).
CUlaunchConfig cluster_config(const LaunchSpec& launch, CUstream stream, CUlaunchAttribute& attribute) {
  attribute = cluster_attribute(launch);
  CUlaunchConfig config = extended_config(launch, stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

}  // namespace

// A cluster must tile the grid, hold at most 8 blocks (the portable limit: evotune does not opt in to
// larger ones), and fit the device with this kernel's resources (cuOccupancyMaxActiveClusters > 0).
void GpuEvaluator::check_cluster(CUfunction function, const LaunchSpec& launch, const char* who) const {
  if (!clustered(launch)) return;
  const std::string text = "cluster " + dims_text(launch.cluster);
  for (int axis = 0; axis < 3; ++axis)
    if (launch.cluster[axis] == 0 || launch.grid[axis] % launch.cluster[axis] != 0)
      throw Failure{Status::launch_error,
                    std::string(who) + ": " + text + " does not tile the grid " + dims_text(launch.grid)};
  const std::uint64_t blocks = std::uint64_t{launch.cluster[0]} * launch.cluster[1] * launch.cluster[2];
  if (blocks > 8)
    throw Failure{Status::resource_error, std::string(who) + ": " + text + " has " + std::to_string(blocks) +
                                              " blocks, more than the portable 8"};
  CUlaunchAttribute attribute{};
  const CUlaunchConfig config = cluster_config(launch, state_->stream.get(), attribute);
  int clusters = 0;
  const CUresult result = cuda::driver().cuOccupancyMaxActiveClusters(&clusters, function, &config);
  if (result != CUDA_SUCCESS || clusters == 0)
    throw Failure{Status::resource_error,
                  std::string(who) + ": " + text + " of " +
                      std::to_string(std::uint64_t{launch.block[0]} * launch.block[1] * launch.block[2]) +
                      "-thread blocks with " + std::to_string(launch.dynamic_smem_bytes) +
                      " bytes of dynamic shared memory cannot be placed on this device" +
                      (result != CUDA_SUCCESS ? " (" + cuda::error_text(result) + ")" : std::string())};
}

KernelArgs GpuEvaluator::arguments(const LaunchSpec& launch, Role role) const {
  try {
    return KernelArgs(launch.args, [&](const std::string& name) { return state_->address(name, role); });
  } catch (const Error& e) {
    throw Failure{Status::launch_error, e.what()};
  }
}

// A programmatic launch (compute capability 9.0 and later only; an ordinary one below) may start while the
// grid before it runs, and its kernel waits for that grid (griddepcontrol.wait) before it reads its output.
// Unless its entry says "always" it is never a variant's first launch (SpaceModel::launch), so what precedes
// it on the stream is a kernel of the variant; an "always" first launch follows whatever the stream ran
// before the execution: the previous execution's last kernel (timed back to back, or in a graph), one of
// ours (fills, checksums, the reference), or the memset of a zeroed scratch (DeviceState::zero_scratch runs
// before the first launch). None of ours lets a dependent start early, and the attribute does not relax a
// memset: the driver overlaps the launch only with a previous kernel that asks for it
// (griddepcontrol.launch_dependents), and a graph's programmatic edges join kernels.
void GpuEvaluator::launch(CUfunction function, const LaunchSpec& launch, KernelArgs& args) const {
  const bool programmatic = runs_programmatic(launch, device_.cc_major);
  if (clustered(launch) || programmatic) {
    CUlaunchAttribute attributes[2];
    unsigned count = 0;
    if (clustered(launch)) attributes[count++] = cluster_attribute(launch);
    if (programmatic) attributes[count++] = programmatic_attribute();
    CUlaunchConfig config = extended_config(launch, state_->stream.get());
    config.attrs = attributes;
    config.numAttrs = count;
    cuda::check(cuda::driver().cuLaunchKernelEx(&config, function, args.params(), nullptr),
                "cuLaunchKernelEx");
    return;
  }
  cuda::check(cuda::driver().cuLaunchKernel(
                  function, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
                  launch.block[2], launch.dynamic_smem_bytes, state_->stream.get(), args.params(), nullptr),
              "cuLaunchKernel");
}

void GpuEvaluator::wait(double timeout_ms, const std::string& who) const {
  const cuda::Event& done = state_->events.back();
  done.record(state_->stream.get());
  const auto deadline = Clock::now() + std::chrono::duration<double, std::milli>(timeout_ms);
  while (!done.done()) {
    if (Clock::now() > deadline)
      throw Failure{Status::timeout, who + " did not finish within " + short_number(timeout_ms) + " ms",
                    Failure::Reset::hung};
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

double GpuEvaluator::time_reference() {
  const DeviceState& state = *state_;
  KernelArgs args = arguments(reference_.launch, Role::reference);
  const int launches = std::min<int>(3, static_cast<int>(state.events.size() / 2));
  for (int i = 0; i < launches; ++i) {
    state.events[2 * i].record(state.stream.get());
    launch(state.reference, reference_.launch, args);
    state.events[2 * i + 1].record(state.stream.get());
  }
  wait(settings_.timeout_ms * launches, "reference kernel (timing)");
  std::vector<double> samples_us;
  for (int i = 0; i < launches; ++i)
    samples_us.push_back(1000.0 * cuda::elapsed_ms(state.events[2 * i], state.events[2 * i + 1]));
  return launches > 0 ? summarize(std::move(samples_us)).median_us / 1000.0 : 0.0;
}

void GpuEvaluator::recover(const std::string& cause, bool kernel_may_be_running) {
  if (!settings_.reset_in_process) {
    mark_unhealthy("the CUDA context of device " + std::to_string(ordinal_) + " is unusable after: " + cause);
    return;
  }
  spdlog::warn("resetting the CUDA context of device {} after: {}", ordinal_, cause);
  reference_inputs_.reset();  // the reference runs again in the new context, as a check that it works
  const CUdevice device = state_->context.device();
  const CUcontext context = state_->context.get();
  state_->abandon();
  state_.reset();
  // The reset runs on its own thread: if a hung kernel cannot be stopped, only that thread stays stuck.
  auto finished = std::make_shared<std::promise<CUresult>>();
  std::future<CUresult> result = finished->get_future();
  std::thread([device, context, finished] {
    const CUresult reset = cuda::reset_primary_context(device, context);
    cuda::log_release_failure(cuda::driver().cuCtxSetCurrent(nullptr), "cuCtxSetCurrent");
    finished->set_value(reset);
  }).detach();
  const double limit_ms = kernel_may_be_running ? kHungResetLimitMs : kResetLimitMs;
  if (result.wait_for(std::chrono::duration<double, std::milli>(limit_ms)) != std::future_status::ready) {
    mark_unhealthy("device " + std::to_string(ordinal_) + " did not recover within " +
                   short_number(limit_ms) + " ms after: " + cause + " (restart evotune)");
    return;
  }
  if (const CUresult reset = result.get(); reset != CUDA_SUCCESS)
    spdlog::warn("cuDevicePrimaryCtxReset: {}", cuda::error_text(reset));
  std::string failure = rebuild();
  if (!failure.empty()) {
    // Second chance, exactly as cudaDeviceReset would do it: on this thread, with the context current.
    spdlog::warn("rebuilding after the reset failed ({}); resetting again on the evaluating thread", failure);
    if (const CUresult reset = cuda::reset_primary_context(device, context); reset != CUDA_SUCCESS)
      spdlog::warn("cuDevicePrimaryCtxReset: {}", cuda::error_text(reset));
    failure = rebuild();
  }
  if (!failure.empty())
    mark_unhealthy("cannot rebuild the device state after: " + cause + ": " + failure +
                   " (the driver keeps this error until the process exits: restart the evaluating process)");
}

std::string GpuEvaluator::rebuild() {
  try {
    build_state();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  } catch (const Failure& failure) {
    return failure.message;
  }
}

void GpuEvaluator::mark_unhealthy(const std::string& reason) {
  healthy_ = false;
  unhealthy_reason_ = reason;
  if (settings_.reset_in_process)
    spdlog::error("{}", reason);
  else
    spdlog::debug("{}", reason);
}

}  // namespace evotune
