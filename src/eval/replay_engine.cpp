// The worker's stand-in engine: answers each job with the outcome a recorded sweep holds for its config.
#include <chrono>
#include <thread>

#include "core/config.hpp"
#include "eval/wire_format.hpp"
#include "eval/worker_engine.hpp"
#include "replay/recorded_sweep.hpp"
#include "replay/replay_objective.hpp"

namespace evotune {
namespace {

class ReplayEngine : public WorkerEngine {
 public:
  explicit ReplayEngine(const nlohmann::json& setup)
      : sweep_(load_sweep(setup.at("replay_file").get<std::string>())),
        objective_(sweep_),
        delay_ms_(setup.value("delay_ms", 0.0)) {}

  nlohmann::json ready_info() const override {
    return {{"device", to_json(sweep_.device)}, {"reference_ms", 0.0}};
  }

  Outcome evaluate(const nlohmann::json& job) override {
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms_));
    Outcome outcome = objective_.evaluate(parse_int_map(job.at("config").get<std::string>()));
    outcome.validation_seed = job.at("seed").get<std::uint64_t>();
    return outcome;
  }

 private:
  RecordedSweep sweep_;
  ReplayObjective objective_;
  double delay_ms_;
};

}  // namespace

std::unique_ptr<WorkerEngine> make_replay_engine(const nlohmann::json& setup) {
  return std::make_unique<ReplayEngine>(setup);
}

}  // namespace evotune
