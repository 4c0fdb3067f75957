// The space's library baseline (a GEMM through cuBLASLt), timed on the evaluator's buffers like a variant.
#include "core/error.hpp"
#include "cuda/cublaslt.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"

namespace evotune {
namespace {

constexpr int kHeuristicCandidates = 8;  // the algorithms asked of the heuristic; a job times one of them

}  // namespace

TimingStats GpuEvaluator::time_baseline(const GemmBaselineSpec& spec, std::uint64_t seed, int algorithm,
                                        std::string& library) {
  state_->use_problem(0);
  shared_inputs_.reset();               // filled afresh: the library's launches are not checked
  prepare_inputs(seed, Role::variant);  // random inputs: zeros can run faster than real data
  const auto address = [&](const std::string& name) {
    const auto found = state_->address(name, Role::variant);
    if (!found) throw Error("baseline " + spec.library + ": the space has no buffer '" + name + "'");
    return static_cast<CUdeviceptr>(*found);
  };
  const cuda::CublasLtGemm gemm(spec, address(spec.a), address(spec.b), address(spec.d),
                                kHeuristicCandidates);
  if (algorithm >= gemm.algorithms())
    throw Error("baseline " + spec.library + ": its heuristic returned " + std::to_string(gemm.algorithms()) +
                " algorithms, none of rank " + std::to_string(algorithm));
  library = spec.library + " " + gemm.version();
  const Measured measured = time_runs([&] { gemm.run(algorithm, state_->stream.get()); });
  cuda::check(cuda::driver().cuStreamSynchronize(state_->stream.get()), "cuStreamSynchronize");
  return measured.timing;
}

}  // namespace evotune
