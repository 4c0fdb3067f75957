// Inputs computed from other inputs: after every fill, the space's DerivedInputs kernel writes the buffers of
// FillType derived (a backward pass's O and LSE from Q, K and V), before checksums and guards are taken, so a
// variant sees consistent inputs and the input checksums still catch one that writes them.
#include <algorithm>

#include "core/error.hpp"
#include "cuda/resources.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"
#include "eval/guard_regions.hpp"
#include "eval/launch_args.hpp"

namespace evotune {
namespace {

// What a variant's result says when the space's own kernel failed while preparing its inputs.
constexpr const char* kNotTheVariant = " (a fault of the space's DerivedInputs kernel, not of the variant)";

}  // namespace

// The read-only inputs (derived ones included) are filled and derived once per seed, special fill and
// problem: the reference's launch and the variant's (and its bitwise repeat) on the same inputs share them.
// Only the DerivedInputs kernel and fill_inputs write them; every checked variant launch is followed by their
// checksums (a change ends the evaluation), and evaluate() forgets them before it starts.
void GpuEvaluator::prepare_inputs(std::uint64_t seed, Role role, int special) {
  const auto inputs = std::make_tuple(seed, special, state_->problem());
  if (shared_inputs_ == inputs) {
    state_->fill_own_copies(seed, role, special);
  } else {
    shared_inputs_.reset();
    state_->fill_inputs(seed, role, special);
    if (derived_inputs_) {
      try {
        run_derived_inputs(role);
      } catch (const Failure& failure) {
        throw Failure{failure.status, failure.message + kNotTheVariant, failure.reset};
      }
    }
    shared_inputs_ = inputs;
  }
  state_->copy_constant_symbols(role);
}

const LaunchSpec& GpuEvaluator::derived_inputs_launch() const {
  const std::size_t problem = state_->problem();
  if (problem == 0) return derived_inputs_->launch;
  return *extra_problems_.at(problem - 1).derived_launch;  // the constructor checked that each has one
}

void GpuEvaluator::run_derived_inputs(Role role) {
  const LaunchSpec& derived = derived_inputs_launch();
  const std::string who = "DerivedInputs kernel '" + derived.kernel_name + "'";
  try {
    KernelArgs args = arguments(derived, role);
    launch(state_->derived_inputs, derived, args);
    wait(settings_.timeout_ms, "it");
  } catch (const Failure& failure) {
    throw Failure{failure.status, who + ": " + failure.message, failure.reset};
  } catch (const cuda::CudaError& e) {
    throw Failure{status_of(e.result()), who + ": " + e.what(),
                  cuda::is_sticky(e.result()) ? Failure::Reset::sticky : Failure::Reset::none};
  }
}

// For each problem: the kernel fits its launch, writes inside its buffers and no input but the derived ones,
// and gives the same bits twice (every validation round computes the derived inputs afresh, and a variant's
// result must not hang on which run of them it got).
void GpuEvaluator::check_derived_inputs() {
  const auto is_derived = [&](const std::string& name) {
    return std::any_of(buffers_.begin(), buffers_.end(), [&](const BufferSpec& buffer) {
      return buffer.name == name && buffer.fill.kind == FillSpec::Kind::derived;
    });
  };
  const std::string who = "the space's DerivedInputs kernel '" + derived_inputs_->launch.kernel_name + "'";
  shared_inputs_.reset();  // filled and derived here without prepare_inputs
  try {
    // Inside the try: gone before a failure's handling replaces the state.
    struct MainProblemAfter {
      DeviceState& state;
      ~MainProblemAfter() { state.use_problem(0); }
    } main_problem_after{*state_};
    for (std::size_t problem = 0; problem <= extra_problems_.size(); ++problem) {
      state_->use_problem(problem);
      const std::string where = problem == 0 ? "" : " (at " + extra_problems_[problem - 1].label + ")";
      check_resources(state_->derived_inputs, derived_inputs_launch(), "DerivedInputs kernel");
      state_->fill_inputs(0, Role::reference);
      state_->arm_guards(Role::reference);
      const auto filled = state_->input_checksums();
      run_derived_inputs(Role::reference);
      if (const auto breach = state_->find_breach(Role::reference))
        throw Error(who + " " + describe(*breach) + where);
      const auto first = state_->input_checksums();
      run_derived_inputs(Role::reference);
      const auto second = state_->input_checksums();
      for (std::size_t i = 0; i < first.size(); ++i) {
        const std::string& name = first[i].first;
        if (!is_derived(name) && first[i].second != filled[i].second)
          throw Error(who + " wrote into the input '" + name +
                      "', which is not of FillType Derived: it may write only those" + where);
        if (is_derived(name) && first[i].second != second[i].second)
          throw Error(
              who + " gave other bits for '" + name +
              "' on a second run on the same inputs: it must be deterministic, since every validation "
              "round computes the derived inputs afresh" +
              where);
      }
    }
  } catch (const Failure& failure) {
    Outcome ignored;
    handle(failure, ignored);  // a sticky fault: the context is reset before the evaluator is thrown away
    throw Error(std::string(kDerivedInputsSpaceError) + failure.message);
  } catch (const cuda::CudaError& e) {
    throw Error(kDerivedInputsSpaceError + who + ": " + e.what());
  }
}

}  // namespace evotune
