// The worker's GPU engine: a GpuEvaluator on one device, set up from the tuning process's message.
#include "core/error.hpp"
#include "eval/gpu_evaluator.hpp"
#include "worker/worker_engine.hpp"

namespace evotune {
namespace {

constexpr std::uint64_t kBaselineSeed = 0x6261736531ull;  // the baseline's inputs (fixed: its timing only)

class GpuEngine : public WorkerEngine {
 public:
  explicit GpuEngine(const GpuSetup& setup)
      : evaluator_(setup.device_ordinal, setup.buffers, setup.reference, setup.tolerances, setup.settings,
                   setup.include_dirs, setup.extra_problems) {
    if (!setup.baseline) return;
    // A library that is missing or refuses the problem costs the comparison, not the tune.
    try {
      baseline_ = evaluator_.time_baseline(*setup.baseline, kBaselineSeed);
    } catch (const Error& e) {
      baseline_error_ = e.what();
    }
  }

  ReadyAnswer ready() const override {
    return {evaluator_.device(), evaluator_.reference_ms(), baseline_, baseline_error_};
  }

  Outcome evaluate(const JobMessage& job) override {
    evaluator_.set_timeout_ms(job.launch_limit_ms);  // the session's launch limit, ceiling applied
    if (!job.kernel) throw Error("job message: kernel: missing (a GPU worker needs the compiled variant)");
    Outcome outcome =
        evaluator_.evaluate(*job.kernel, job.validation_seed, job.extra_launches, job.timing_only);
    if (outcome.status == Status::timeout && !job.limit_basis.empty())
      outcome.message += " (limit: " + job.limit_basis + ")";
    return outcome;
  }

  bool healthy() const override { return evaluator_.healthy(); }

 private:
  GpuEvaluator evaluator_;
  std::optional<BaselineTiming> baseline_;
  std::string baseline_error_;
};

}  // namespace

std::unique_ptr<WorkerEngine> make_gpu_engine(const GpuSetup& setup) {
  return std::make_unique<GpuEngine>(setup);
}

}  // namespace evotune
