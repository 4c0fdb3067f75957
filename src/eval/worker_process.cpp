// The worker process: sets up its engine, then answers one job at a time until its input closes.
#include <spdlog/spdlog.h>

#include "core/error.hpp"
#include "eval/wire_format.hpp"
#include "eval/worker_engine.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune {
namespace {

// Exit codes the pool reads.
constexpr int kExitDone = 0;
constexpr int kExitSetupFailed = 2;
constexpr int kExitUnhealthy = 3;
constexpr int kExitProtocol = 4;

std::unique_ptr<WorkerEngine> make_engine(const nlohmann::json& setup) {
  const std::string engine = setup.at("engine");
  if (engine == "gpu") return make_gpu_engine(setup);
  if (engine == "replay") return make_replay_engine(setup);
  throw Error("unknown worker engine '" + engine + "'");
}

}  // namespace

int run_worker(int in_fd, int out_fd) {
  std::unique_ptr<WorkerEngine> engine;
  try {
    const auto setup = read_frame(in_fd);
    if (!setup) return kExitDone;
    engine = make_engine(*setup);
    write_frame(out_fd, {{"type", "ready"}, {"info", engine->ready_info()}});
  } catch (const std::exception& e) {
    try {
      write_frame(out_fd, {{"type", "setup_error"}, {"message", e.what()}});
    } catch (const std::exception&) {
    }
    return kExitSetupFailed;
  }
  try {
    while (auto job = read_frame(in_fd)) {
      const Outcome outcome = engine->evaluate(*job);
      const bool healthy = engine->healthy();
      write_frame(out_fd, {{"type", "result"},
                           {"ticket", job->at("ticket")},
                           {"outcome", to_json(outcome)},
                           {"healthy", healthy}});
      // A context a fault left unusable dies with the process: the pool starts a fresh worker.
      if (!healthy) return kExitUnhealthy;
    }
  } catch (const std::exception& e) {
    spdlog::error("worker: {}", e.what());
    return kExitProtocol;
  }
  return kExitDone;
}

}  // namespace evotune
