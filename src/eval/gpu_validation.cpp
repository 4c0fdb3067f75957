// Validation of one variant: rounds on fresh inputs, guard regions and input checksums around every launch,
// and a bitwise repeat of the first round for deterministic spaces.
#include "core/error.hpp"
#include "eval/compare.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"
#include "eval/launch_args.hpp"

namespace evotune {

std::string GpuEvaluator::special_inputs_text(int special) const {
  std::string text;
  for (const auto& buffer : buffers_) {
    if (static_cast<std::size_t>(special) >= buffer.special_fills.size()) continue;
    const FillSpec& fill = buffer.special_fills[static_cast<std::size_t>(special)];
    text += (text.empty() ? "" : ", ") + buffer.name + " " +
            (fill.kind == FillSpec::Kind::constant
                 ? "= " + short_number(fill.value)
                 : "in [" + short_number(fill.low) + ", " + short_number(fill.high) + "]");
  }
  return text;
}

int GpuEvaluator::special_rounds() const {
  std::size_t most = 0;
  for (const auto& buffer : buffers_) most = std::max(most, buffer.special_fills.size());
  return static_cast<int>(most);
}

bool GpuEvaluator::checked_run(const LaunchSpec& launch, std::uint64_t seed, int special, Outcome& outcome) {
  const std::vector<Step> steps = variant_steps(launch);  // allocates the scratch buffers the fill poisons
  prepare_inputs(seed, Role::variant, special);
  state_->arm_guards(Role::variant);
  const auto before = state_->input_checksums();
  run_steps(steps);
  wait(settings_.timeout_ms, "variant");
  if (const auto breach = state_->find_breach(Role::variant)) {
    shared_inputs_.reset();  // it wrote somewhere it should not
    outcome.status = Status::out_of_bounds;
    outcome.message = describe(*breach);
    return false;
  }
  const auto after = state_->input_checksums();
  for (std::size_t i = 0; i < before.size(); ++i)
    if (before[i].second != after[i].second) {
      shared_inputs_.reset();
      outcome.status = Status::wrong_result;
      outcome.message = "wrote into the read-only input '" + before[i].first + "' (its checksum changed)";
      return false;
    }
  return true;
}

void GpuEvaluator::validate(const LaunchSpec& launch, std::uint64_t seed, Outcome& outcome) {
  const int random_rounds = std::max(1, settings_.validation_rounds);
  const int rounds = random_rounds + special_rounds();
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t round_seed = validation_round_seed(seed, round);
    const int special = round < random_rounds ? -1 : round - random_rounds;
    const std::string which =
        special >= 0 ? " (special inputs " + std::to_string(special + 1) + " of " +
                           std::to_string(rounds - random_rounds) + ": " + special_inputs_text(special) + ")"
        : random_rounds > 1
            ? " (validation round " + std::to_string(round + 1) + " of " + std::to_string(random_rounds) + ")"
            : "";
    run_reference(round_seed, special);
    if (!checked_run(launch, round_seed, special, outcome)) {
      outcome.message += which;
      return;
    }
    const ErrorStats error = state_->compare_outputs();
    outcome.error = round == 0 ? error : worst_round(*outcome.error, error);
    outcome.status = judge(error, tolerances_);
    if (outcome.status != Status::ok) {
      outcome.message = describe_verdict(outcome.status, error, tolerances_) + which;
      return;
    }
    if (round > 0 || !tolerances_.deterministic) continue;
    state_->keep_outputs();
    if (!checked_run(launch, round_seed, special, outcome)) {
      outcome.message += " (second launch on the same inputs)";
      return;
    }
    if (const auto difference = state_->differs_from_kept()) {
      const auto& [name, how] = *difference;
      outcome.status = Status::nondeterministic;
      outcome.message = "two launches on the same inputs differ in " + std::to_string(how.differing) +
                        " elements of '" + name + "', the first at element " + std::to_string(how.first) +
                        " (" + short_number(how.first_a) + " vs " + short_number(how.first_b) + ")";
      return;
    }
  }
  outcome.validation_rounds = rounds;
}

void GpuEvaluator::validate_extra_problems(const std::vector<LaunchSpec>& launches, std::uint64_t seed,
                                           Outcome& outcome) {
  // The main problem's buffers are back in use however this ends (a failure unwinds through here first).
  struct MainProblemAfter {
    DeviceState& state;
    ~MainProblemAfter() { state.use_problem(0); }
  } main_problem_after{*state_};
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::size_t problem = i + 1;
    const std::uint64_t problem_seed = validation_round_seed(seed, 100 + static_cast<int>(i));
    state_->use_problem(problem);
    run_reference(problem_seed, -1, problem);
    const std::string where = " (at " + extra_problems_[i].label + ")";
    if (!checked_run(launches[i], problem_seed, -1, outcome)) {
      outcome.message += where;
      return;
    }
    const ErrorStats error = state_->compare_outputs();
    outcome.status = judge(error, tolerances_);
    if (outcome.status != Status::ok) {
      outcome.error = error;
      outcome.message = describe_verdict(outcome.status, error, tolerances_) + where;
      return;
    }
    ++outcome.validation_rounds;
  }
}

}  // namespace evotune
