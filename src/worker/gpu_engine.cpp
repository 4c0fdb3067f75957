// The worker's GPU engine: a GpuEvaluator on one device, set up from the tuning process's message.
#include "core/error.hpp"
#include "eval/gpu_evaluator.hpp"
#include "worker/worker_engine.hpp"

namespace evotune {
namespace {

class GpuEngine : public WorkerEngine {
 public:
  explicit GpuEngine(const GpuSetup& setup)
      : evaluator_(setup.device_ordinal, setup.buffers, setup.reference, setup.tolerances, setup.settings,
                   setup.include_dirs, setup.extra_problems, setup.derived_inputs),
        baseline_(setup.baseline),
        deterministic_(setup.tolerances.deterministic) {}

  ReadyAnswer ready() const override { return {evaluator_.device(), evaluator_.reference_ms()}; }

  Outcome evaluate(const JobMessage& job) override {
    evaluator_.set_timeout_ms(job.launch_limit_ms);  // the session's launch limit, ceiling applied
    evaluator_.set_deterministic(job.deterministic.value_or(deterministic_));
    if (job.baseline_algorithm >= 0) return time_baseline(job);
    if (!job.kernel) throw Error("job message: kernel: missing (a GPU worker needs the compiled variant)");
    Outcome outcome = evaluator_.evaluate(*job.kernel, job.validation_seed, job.extra_launches,
                                          job.timing_only, job.cut_slow_us);
    if (outcome.status == Status::timeout && !job.limit_basis.empty())
      outcome.message += " (limit: " + job.limit_basis + ")";
    return outcome;
  }

  bool healthy() const override { return evaluator_.healthy(); }

 private:
  // A library that is missing or refuses the problem or the algorithm is the job's failure, never the
  // worker's.
  Outcome time_baseline(const JobMessage& job) {
    Outcome outcome;
    if (!baseline_) {
      outcome.status = Status::launch_error;
      outcome.message = "a baseline job, but the space names no baseline";
      return outcome;
    }
    try {
      std::string library;
      outcome.timing =
          evaluator_.time_baseline(*baseline_, job.validation_seed, job.baseline_algorithm, library);
      outcome.status = Status::ok;
      outcome.message = library;
    } catch (const Error& e) {
      outcome.status = Status::resource_error;
      outcome.message = e.what();
    }
    return outcome;
  }

  GpuEvaluator evaluator_;
  std::optional<GemmBaselineSpec> baseline_;
  bool deterministic_;  // the space's, for jobs that do not say
};

}  // namespace

std::unique_ptr<WorkerEngine> make_gpu_engine(const GpuSetup& setup) {
  return std::make_unique<GpuEngine>(setup);
}

}  // namespace evotune
