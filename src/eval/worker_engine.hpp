// What a worker process evaluates with: the GPU, or a recorded sweep standing in for it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/outcome.hpp"

namespace evotune {

class WorkerEngine {
 public:
  virtual ~WorkerEngine() = default;
  // What the tuning process learns once the engine is set up: {"device": ..., "reference_ms": ...}.
  virtual nlohmann::json ready_info() const = 0;
  // Evaluates one job message ({"config", "kernel", "seed", "timeout_ms"}); variant faults are outcomes.
  virtual Outcome evaluate(const nlohmann::json& job) = 0;
  // False once the engine cannot evaluate any more (a GPU context a fault left unusable).
  virtual bool healthy() const { return true; }
};

// Builds the engine a setup message asks for ({"engine": "gpu" | "replay", ...}). Throws Error when it
// cannot be set up (no GPU, a reference kernel that does not run, an unreadable sweep file).
std::unique_ptr<WorkerEngine> make_gpu_engine(const nlohmann::json& setup);
std::unique_ptr<WorkerEngine> make_replay_engine(const nlohmann::json& setup);

// The worker's main loop over its two pipe ends: a setup message, then jobs until end of file.
// Returns the process exit code.
int run_worker(int in_fd, int out_fd);

}  // namespace evotune
