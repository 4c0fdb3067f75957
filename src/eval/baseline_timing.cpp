// The space's library baseline (a GEMM through cuBLASLt), timed on the evaluator's buffers like a variant.
#include "core/error.hpp"
#include "cuda/cublaslt.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"

namespace evotune {

BaselineTiming GpuEvaluator::time_baseline(const GemmBaselineSpec& spec, std::uint64_t seed, int candidates) {
  state_->use_problem(0);
  state_->prepare(seed, Role::variant);  // random inputs: zeros can run faster than real data
  const auto address = [&](const std::string& name) {
    const auto found = state_->address(name, Role::variant);
    if (!found) throw Error("baseline " + spec.library + ": the space has no buffer '" + name + "'");
    return static_cast<CUdeviceptr>(*found);
  };
  const cuda::CublasLtGemm gemm(spec, address(spec.a), address(spec.b), address(spec.d), candidates);
  BaselineTiming result;
  result.library = spec.library + " " + gemm.version();
  result.algorithms = gemm.algorithms();
  for (int i = 0; i < gemm.algorithms(); ++i) {
    const Measured measured = time_runs([&] { gemm.run(i, state_->stream.get()); });
    const double us = measured.timing.median_us;
    if (i == 0) {
      result.heuristic_us = us;
      const TimingMethod& method = measured.timing.method.value_or(TimingMethod{});
      result.timing_mode =
          method.graph ? "graph x" + std::to_string(method.graph_executions) : std::string("single");
    }
    if (i == 0 || us < result.best_us) {
      result.best_us = us;
      result.best_index = i;
    }
  }
  cuda::check(cuda::driver().cuStreamSynchronize(state_->stream.get()), "cuStreamSynchronize");
  return result;
}

}  // namespace evotune
