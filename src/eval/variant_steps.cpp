// A variant's kernels: its module loaded, each launch's kernel found and checked, the launches run in order.
#include <memory>

#include "core/error.hpp"
#include "cuda/resources.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"
#include "eval/launch_args.hpp"

namespace evotune {

void GpuEvaluator::load_variant(const CompiledKernel& variant) {
  if (variant.cubin.empty()) throw Failure{Status::launch_error, "the variant has no cubin"};
  try {
    state_->variant_module = cuda::Module::load(variant.cubin);
  } catch (const cuda::CudaError& e) {
    if (cuda::is_sticky(e.result())) throw;
    throw Failure{status_of(e.result()), std::string("cannot load the variant's cubin: ") + e.what()};
  }
}

std::vector<GpuEvaluator::Step> GpuEvaluator::variant_steps(const LaunchSpec& launch) {
  state_->use_scratch(launch.scratch);
  const auto launches = launch_steps(launch);
  std::vector<Step> steps;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const LaunchSpec& step = *launches[i];
    Step ready;
    ready.launch = &step;
    try {
      ready.function = state_->variant_module.function(step.kernel_name);
    } catch (const cuda::CudaError& e) {
      throw Failure{Status::launch_error, "no kernel '" + step.kernel_name + "' in the cubin: " + e.what()};
    }
    // A single-launch variant keeps the messages it always had.
    const std::string who = launches.size() == 1
                                ? "variant"
                                : "variant kernel '" + step.kernel_name + "' (launch " +
                                      std::to_string(i + 1) + " of " + std::to_string(launches.size()) + ")";
    check_resources(ready.function, step, who.c_str());
    try {
      ready.args = std::make_unique<KernelArgs>(
          step.args, [&](const std::string& name) { return state_->address(name, Role::variant); });
    } catch (const cuda::TensorMapRefused& e) {
      throw Failure{Status::resource_error, e.what()};
    } catch (const Error& e) {
      throw Failure{Status::launch_error, e.what()};
    }
    steps.push_back(std::move(ready));
  }
  return steps;
}

void GpuEvaluator::run_steps(const std::vector<Step>& steps) const {
  state_->zero_scratch();  // a step of the variant: timed with it, as its exported launcher runs it
  for (const Step& step : steps) launch(step.function, *step.launch, *step.args);
}

}  // namespace evotune
