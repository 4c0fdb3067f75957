// Validation of one variant: rounds on fresh inputs, guard regions and input checksums around every launch,
// and a bitwise repeat of the first round for deterministic spaces.
#include "core/error.hpp"
#include "eval/compare.hpp"
#include "eval/device_state.hpp"
#include "eval/gpu_evaluator.hpp"
#include "eval/launch_args.hpp"

namespace evotune {

std::vector<std::string> GpuEvaluator::output_names() const {
  std::vector<std::string> names;
  for (const auto& buffer : buffers_)
    if (buffer.is_output) names.push_back(buffer.name);
  return names;
}

std::optional<std::vector<std::vector<double>>> GpuEvaluator::checked_run(CUfunction function,
                                                                          const LaunchSpec& launch,
                                                                          std::uint64_t seed,
                                                                          Outcome& outcome) {
  state_->prepare(seed, Role::variant);
  state_->arm_guards(Role::variant);
  const auto before = state_->input_checksums();
  KernelArgs args = arguments(launch, Role::variant);
  this->launch(function, launch, args);
  wait(settings_.timeout_ms, "variant");
  if (const auto breach = state_->find_breach(Role::variant)) {
    outcome.status = Status::out_of_bounds;
    outcome.message = describe(*breach);
    return std::nullopt;
  }
  const auto after = state_->input_checksums();
  for (std::size_t i = 0; i < before.size(); ++i)
    if (before[i].second != after[i].second) {
      outcome.status = Status::wrong_result;
      outcome.message = "wrote into the read-only input '" + before[i].first + "' (its checksum changed)";
      return std::nullopt;
    }
  return state_->download_outputs(Role::variant);
}

void GpuEvaluator::validate(CUfunction function, const LaunchSpec& launch, std::uint64_t seed,
                            Outcome& outcome) {
  const int rounds = std::max(1, settings_.validation_rounds);
  const std::vector<std::string> names = output_names();
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t round_seed = validation_round_seed(seed, round);
    const std::string which =
        rounds > 1 ? " (validation round " + std::to_string(round + 1) + " of " + std::to_string(rounds) + ")"
                   : "";
    const auto& expected = reference_outputs(round_seed);
    const auto outputs = checked_run(function, launch, round_seed, outcome);
    if (!outputs) {
      outcome.message += which;
      return;
    }
    ErrorStats error;
    for (std::size_t i = 0; i < outputs->size(); ++i)
      error = i == 0 ? compare_outputs(expected[i], (*outputs)[i])
                     : merge(error, compare_outputs(expected[i], (*outputs)[i]));
    outcome.error = round == 0 ? error : merge(*outcome.error, error);
    outcome.status = judge(error, tolerances_);
    if (outcome.status != Status::ok) {
      outcome.message = describe_verdict(outcome.status, error, tolerances_) + which;
      return;
    }
    if (round > 0 || !tolerances_.deterministic) continue;
    const auto again = checked_run(function, launch, round_seed, outcome);
    if (!again) {
      outcome.message += " (second launch on the same inputs)";
      return;
    }
    for (std::size_t i = 0; i < outputs->size(); ++i)
      if (const auto difference = bitwise_difference((*outputs)[i], (*again)[i])) {
        outcome.status = Status::nondeterministic;
        outcome.message =
            "two launches on the same inputs differ in " + std::to_string(difference->differing) +
            " elements of '" + names.at(i) + "', the first at element " + std::to_string(difference->first) +
            " (" + short_number(difference->first_a) + " vs " + short_number(difference->first_b) + ")";
        return;
      }
  }
  outcome.validation_rounds = rounds;
}

}  // namespace evotune
