// The worker's stand-in engine: answers each job with the outcome a recorded sweep holds for its config.
#include <chrono>
#include <thread>

#include "replay/recorded_sweep.hpp"
#include "replay/replay_objective.hpp"
#include "worker/worker_engine.hpp"

namespace evotune {
namespace {

class ReplayEngine : public WorkerEngine {
 public:
  explicit ReplayEngine(const ReplaySetup& setup)
      : sweep_(load_sweep(setup.sweep_file)), objective_(sweep_), delay_ms_(setup.delay_ms) {}

  ReadyAnswer ready() const override { return {sweep_.device, 0.0}; }

  Outcome evaluate(const JobMessage& job) override {
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms_));
    Outcome outcome = objective_.evaluate(job.config);
    outcome.validation_seed = job.validation_seed;
    return outcome;
  }

 private:
  RecordedSweep sweep_;
  ReplayObjective objective_;
  double delay_ms_;
};

}  // namespace

std::unique_ptr<WorkerEngine> make_replay_engine(const ReplaySetup& setup) {
  return std::make_unique<ReplayEngine>(setup);
}

}  // namespace evotune
