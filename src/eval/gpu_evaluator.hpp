// GpuEvaluator: validates one compiled variant against the reference kernel on a GPU, then times it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/baseline.hpp"
#include "core/compiled_kernel.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "core/launch_spec.hpp"
#include "core/outcome.hpp"

// The driver's CUfunction is a CUfunc_st*: declared here, this header needs no CUDA include.
struct CUfunc_st;

namespace evotune {
namespace cuda {
class GraphExec;
}

class DeviceState;
class KernelArgs;
enum class Role;

// Owns the device's primary context while it lives; one evaluator per device at a time. Not thread-safe:
// call evaluate() from one thread at a time (any thread).
class GpuEvaluator {
 public:
  // Compiles the builtin kernels for the device, allocates every buffer (outputs once for the
  // reference, once for variants) and runs the reference once as a check. Throws Error for set-up
  // problems: no driver or device, no CUDA headers, a reference that fails to load, launch or finish.
  // include_dirs: where NVRTC finds the CUDA headers (cuda_fp16.h) for the builtin kernels. extra_problems:
  // other problems every variant must also get right, validated after the main problem's rounds.
  // derived_inputs: the space's DerivedInputs kernel (its launch for the main problem; each extra problem
  // carries its own), run after every fill of the inputs to compute those of FillType derived; checked first
  // (eval/derived_inputs.cpp), and an Error names it when it fails: a fault of the space, not of a variant.
  GpuEvaluator(int device_ordinal, std::vector<BufferSpec> buffers, CompiledKernel reference,
               Tolerances tolerances, EvalSettings settings, const std::vector<std::string>& include_dirs,
               std::vector<ExtraProblem> extra_problems = {},
               std::optional<CompiledKernel> derived_inputs = std::nullopt);
  ~GpuEvaluator();
  GpuEvaluator(const GpuEvaluator&) = delete;
  GpuEvaluator& operator=(const GpuEvaluator&) = delete;

  const DeviceInfo& device() const { return device_; }
  // Median time of the reference kernel over a few launches, measured once when the evaluator was built.
  double reference_ms() const { return reference_ms_; }
  // The per-launch limit from now on (the timing phase allows it once per launch).
  void set_timeout_ms(double timeout_ms) { settings_.timeout_ms = timeout_ms; }
  // Whether the next evaluations repeat the first round and demand bit-identical outputs (else
  // nondeterministic): the config's Validation.Deterministic; the tolerances' until set.
  void set_deterministic(bool deterministic) { tolerances_.deterministic = deterministic; }

  // Fills inputs from validation_seed, runs the reference (cached per seed) and the variant, compares,
  // and times an ok variant. Every variant fault is a status in the Outcome (compile fields untouched);
  // this never throws for a variant. After a sticky fault or a hung kernel it resets the context and
  // rebuilds the device state; where the driver refuses (driver 580 does, for both) healthy() turns false.
  // extra_launches: the variant's launch for each extra problem (as many as the evaluator was given).
  // timing_only: no validation, only the timing on validation_seed's inputs (re-timing a validated variant).
  // cut_slow_us > 0: a variant whose fastest warm-up execution takes longer is timed from its warm-up
  // executions alone (TimingMethod::cut; EvalSettings::cut_slow_factor).
  Outcome evaluate(const CompiledKernel& variant, std::uint64_t validation_seed,
                   const std::vector<LaunchSpec>& extra_launches = {}, bool timing_only = false,
                   double cut_slow_us = 0);

  // Times the space's library baseline with the algorithm its heuristic ranks `algorithm` (0: its first
  // choice) on this evaluator's buffers (inputs filled from `seed`) the way a variant is timed
  // (eval/baseline_timing.cpp); `library` gets its name and version. Throws Error where the library is
  // missing, refuses the problem or has no algorithm of that rank.
  TimingStats time_baseline(const GemmBaselineSpec& spec, std::uint64_t seed, int algorithm,
                            std::string& library);

  // False once a hung kernel could not be killed (or the state not rebuilt): evaluate() then only returns
  // failures, and the caller should stop with unhealthy_reason().
  bool healthy() const { return healthy_; }
  const std::string& unhealthy_reason() const { return unhealthy_reason_; }

 private:
  struct Failure;
  struct Step;
  void load_variant(const CompiledKernel& variant);
  // The launch and those after it (LaunchSpec::then), in order (eval/variant_steps.cpp): each kernel found in
  // the variant's module and checked against the device's limits, its arguments bound to the buffers, the
  // scratch buffers allocated first. Throws Failure.
  std::vector<Step> variant_steps(const LaunchSpec& launch);
  void run_steps(const std::vector<Step>& steps) const;
  void check_resources(CUfunc_st* function, const LaunchSpec& launch, const char* who) const;
  KernelArgs arguments(const LaunchSpec& launch, Role role) const;
  void launch(CUfunc_st* function, const LaunchSpec& launch, KernelArgs& args) const;
  void check_cluster(CUfunc_st* function, const LaunchSpec& launch, const char* who) const;
  void wait(double timeout_ms, const std::string& who) const;
  // The inputs for `seed` (special fills of index `special` where >= 0) of the problem in use, as `role` sees
  // them: filled, those of FillType derived computed by the DerivedInputs kernel, copied into constant
  // memory. The read-only inputs are filled and derived only when they do not hold these already
  // (shared_inputs_).
  void prepare_inputs(std::uint64_t seed, Role role, int special = -1);
  // The DerivedInputs kernel (eval/derived_inputs.cpp): its launch for the problem in use; one run of it on
  // the inputs `role` sees, waited for (Failure naming it); the set-up check of every problem's launch.
  const LaunchSpec& derived_inputs_launch() const;
  void run_derived_inputs(Role role);
  void check_derived_inputs();
  // Leaves the reference's outputs for `seed`'s inputs (special fills of index `special` where >= 0) in its
  // output buffers; runs it unless they are there.
  // problem: 0 the main one, i the (i-1)th extra problem (whose buffers must be in use).
  void run_reference(std::uint64_t seed, int special = -1, std::size_t problem = 0);
  // Validation (eval/gpu_validation.cpp): every round on fresh inputs; sets status, message and error.
  void validate(const LaunchSpec& launch, std::uint64_t seed, Outcome& outcome);
  // After the main problem's rounds: one round on each extra problem; sets status and message on failure.
  void validate_extra_problems(const std::vector<LaunchSpec>& launches, std::uint64_t seed, Outcome& outcome);
  // One checked launch on `seed`'s inputs: guards armed and read-only inputs checksummed around it. False
  // with outcome's status and message set (out_of_bounds, or wrong_result for a write into an input).
  bool checked_run(const LaunchSpec& launch, std::uint64_t seed, int special, Outcome& outcome);
  int special_rounds() const;                          // the most special fills any buffer has
  std::string special_inputs_text(int special) const;  // "q in [-40, 40], k in [-40, 40]"
  // Timing (eval/variant_timing.cpp) in settings_.timing's mode; TimingStats::method says how it went.
  struct Measured {
    TimingStats timing;
    std::optional<EnergyStats> energy;  // when settings_.measure_energy and NVML reads the energy counter
  };
  Measured time_variant(const LaunchSpec& launch, double cut_slow_us = 0);
  // time_variant's method for any run: run_once enqueues one execution on the evaluator's stream;
  // cut_slow_us as evaluate's.
  Measured time_runs(const std::function<void()>& run_once, double cut_slow_us = 0);
  // The timing, and with settings_.measure_energy its energy (run_once: one run of executions_per_run
  // executions, the way it was timed).
  Measured with_energy(TimingStats timing, const std::function<void()>& run_once, int executions_per_run);
  // Energy (eval/variant_energy.cpp): the power of a loop of run_once() at least settings_.energy_window_ms
  // long, from NVML's energy counter watched during it, times its time per execution. nullopt where NVML
  // reads no energy for this GPU, or its counter moves too seldom.
  std::optional<EnergyStats> measure_energy(const std::function<void()>& run_once, int executions_per_run,
                                            double us_per_run);
  // The warm-up runs (settings_.warmup, at least one), the timed ones' times in us; waits for them.
  std::vector<double> time_warmup(const std::function<void()>& run_once);
  // settings_.warmup_ms of back-to-back runs (run_us each, estimated), then waits for them.
  void sustain(const std::function<void()>& run_once, double run_us);
  void flush_l2(int repetition) const;  // overwrites the L2 scratch when settings_ ask for it
  TimingStats time_single(const std::function<void()>& run_once, const TimingMethod& method);
  TimingStats time_graph(const cuda::GraphExec& graph, const TimingMethod& method);
  double time_reference();
  void build_state();
  void handle(const Failure& failure, Outcome& outcome);
  void recover(const std::string& cause, bool kernel_may_be_running);
  std::string rebuild();  // build_state(); the failure's text, empty on success
  void mark_unhealthy(const std::string& reason);

  int ordinal_;
  std::vector<BufferSpec> buffers_;
  CompiledKernel reference_;
  std::vector<ExtraProblem> extra_problems_;
  std::optional<CompiledKernel> derived_inputs_;
  Tolerances tolerances_;
  EvalSettings settings_;
  DeviceInfo device_;
  std::string builtin_cubin_;
  std::unique_ptr<DeviceState> state_;
  // The seed, special-fill index and problem whose inputs the read-only input buffers hold, derived ones
  // computed (prepare_inputs then refills only a role's own copies); nullopt when unknown.
  std::optional<std::tuple<std::uint64_t, int, std::size_t>> shared_inputs_;
  // The seed and special-fill index whose reference outputs the reference's output buffers hold.
  std::optional<std::tuple<std::uint64_t, int, std::size_t>> reference_inputs_;  // seed, special, problem
  double reference_ms_ = 0;
  bool healthy_ = true;
  std::string unhealthy_reason_;
};

}  // namespace evotune
