// The worker's GPU engine: a GpuEvaluator on one device, set up from the tuning process's message.

#include "eval/gpu_evaluator.hpp"
#include "eval/wire_format.hpp"
#include "eval/worker_engine.hpp"

namespace evotune {
namespace {

class GpuEngine : public WorkerEngine {
 public:
  explicit GpuEngine(const nlohmann::json& setup)
      : evaluator_(setup.at("device_ordinal").get<int>(), buffers(setup.at("buffers")),
                   kernel_from_json(setup.at("reference")), tolerances_from_json(setup.at("tolerances")),
                   settings_from_json(setup.at("settings"))) {}

  nlohmann::json ready_info() const override {
    return {{"device", to_json(evaluator_.device())}, {"reference_ms", evaluator_.reference_ms()}};
  }

  Outcome evaluate(const nlohmann::json& job) override {
    evaluator_.set_timeout_ms(
        job.at("timeout_ms").get<double>());  // the session's launch_limit, ceiling applied
    Outcome outcome =
        evaluator_.evaluate(kernel_from_json(job.at("kernel")), job.at("seed").get<std::uint64_t>());
    if (outcome.status == Status::timeout && job.contains("timeout_basis"))
      outcome.message += " (limit: " + job["timeout_basis"].get<std::string>() + ")";
    return outcome;
  }

  bool healthy() const override { return evaluator_.healthy(); }

 private:
  static std::vector<BufferSpec> buffers(const nlohmann::json& list) {
    std::vector<BufferSpec> result;
    for (const auto& item : list) result.push_back(buffer_from_json(item));
    return result;
  }

  GpuEvaluator evaluator_;
};

}  // namespace

std::unique_ptr<WorkerEngine> make_gpu_engine(const nlohmann::json& setup) {
  return std::make_unique<GpuEngine>(setup);
}

}  // namespace evotune
