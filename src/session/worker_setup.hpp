// The set-up messages of a tuning run's worker processes, and which GPUs they run on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/compiled_kernel.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "space/search_space.hpp"
#include "worker/messages.hpp"

namespace evotune {

// "0", "0,1" or "all" (of `count` GPUs) to ordinals. Throws Error for malformed text, a repeated or
// missing GPU.
std::vector<int> parse_device_list(const std::string& text, int count);
// The first GPU of --devices on this machine (parse_device_list over its GPUs); Error as there.
int first_listed_device(const std::string& text);

// The GPU all the ordinals share (a run stores its results under one device); Error when they differ.
DeviceInfo common_device(const std::vector<int>& ordinals);

// One GPU worker per ordinal; workers never reset a faulted context themselves (the pool restarts them).
// include_dirs: the CUDA headers the workers compile their builtin kernels with. derived_inputs: the space's
// DerivedInputs kernel, compiled, with its launch for the main problem.
std::vector<WorkerSetup> gpu_worker_setups(
    const std::vector<int>& ordinals, const std::vector<BufferSpec>& buffers, const CompiledKernel& reference,
    const Tolerances& tolerances, EvalSettings settings, const std::vector<std::string>& include_dirs,
    const std::vector<ExtraProblem>& extra_problems = {},
    const std::optional<CompiledKernel>& derived_inputs = std::nullopt);

// The space's DerivedInputs kernel for `sizes` as the workers take it (`cubin` compiled from
// derived_inputs_source with derived_inputs_constants); nullopt for a space without one.
std::optional<CompiledKernel> derived_inputs_setup(const SearchSpace& space, const std::string& cubin,
                                                   const Sizes& sizes, const DeviceInfo& device);

// The space's extra problems for `sizes` (Validation.ExtraProblems) as the workers take them (with the
// DerivedInputs kernel's launch for each, where the space has one), and a variant's launch for each.
std::vector<ExtraProblem> extra_problem_setups(const SearchSpace& space, const Sizes& sizes,
                                               const DeviceInfo& device);
std::vector<LaunchSpec> extra_variant_launches(const SearchSpace& space, const Config& config,
                                               const Sizes& sizes, const DeviceInfo& device);

// Validation rounds beyond --validation-rounds: the space's special-input rounds and extra problems.
int extra_validation_rounds(const SearchSpace& space, const Sizes& sizes);

// `workers` replay workers answering from a recorded sweep, each answer after delay_ms.
std::vector<WorkerSetup> replay_worker_setups(const std::filesystem::path& sweep_file, double delay_ms,
                                              int workers);

}  // namespace evotune
