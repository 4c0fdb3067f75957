// What a worker process evaluates with: the GPU, or a recorded sweep standing in for it.
#pragma once

#include <memory>

#include "core/outcome.hpp"
#include "worker/messages.hpp"

namespace evotune {

class WorkerEngine {
 public:
  virtual ~WorkerEngine() = default;
  // What the tuning process learns once the engine is set up.
  virtual ReadyAnswer ready() const = 0;
  // Evaluates one job; variant faults are outcomes.
  virtual Outcome evaluate(const JobMessage& job) = 0;
  // False once the engine cannot evaluate any more (a GPU context a fault left unusable).
  virtual bool healthy() const { return true; }
};

// The engine a setup message asks for. Throws Error when it cannot be set up (no GPU, a reference kernel that
// does not run, an unreadable sweep file).
std::unique_ptr<WorkerEngine> make_gpu_engine(const GpuSetup& setup);
std::unique_ptr<WorkerEngine> make_replay_engine(const ReplaySetup& setup);

}  // namespace evotune
