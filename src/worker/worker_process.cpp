// The worker process: sets up its engine, then answers one job at a time until its input closes.
#include "worker/worker_process.hpp"

#include <spdlog/spdlog.h>

#include "ipc/child_process.hpp"
#include "ipc/frame_pipe.hpp"
#include "worker/message_codec.hpp"
#include "worker/worker_engine.hpp"

namespace evotune {
namespace {

// The exit codes run_worker documents: the pool learns of a worker's end from its pipes and logs the code
// ("exited with code 3") with it.
constexpr int kExitDone = 0;
constexpr int kExitSetupFailed = 2;
constexpr int kExitUnhealthy = 3;
constexpr int kExitProtocol = 4;

std::unique_ptr<WorkerEngine> make_engine(const WorkerSetup& setup) {
  if (const auto* gpu = std::get_if<GpuSetup>(&setup)) return make_gpu_engine(*gpu);
  return make_replay_engine(std::get<ReplaySetup>(setup));
}

}  // namespace

int run_worker(int in_fd, int out_fd) {
  std::unique_ptr<WorkerEngine> engine;
  try {
    const auto setup = read_frame(in_fd);
    if (!setup) return kExitDone;
    engine = make_engine(decode_setup(*setup));
    write_frame(out_fd, encode(WorkerAnswer{engine->ready()}));
  } catch (const std::exception& e) {
    try {
      write_frame(out_fd, encode(WorkerAnswer{SetupErrorAnswer{e.what()}}));
    } catch (const std::exception&) {
    }
    return kExitSetupFailed;
  }
  try {
    while (const auto frame = read_frame(in_fd)) {
      const JobMessage job = decode_job(*frame);
      ResultAnswer result{job.ticket, engine->evaluate(job), engine->healthy()};
      write_frame(out_fd, encode(WorkerAnswer{std::move(result)}));
      // A context a fault left unusable dies with the process: the pool starts a fresh worker.
      if (!engine->healthy()) return kExitUnhealthy;
    }
  } catch (const std::exception& e) {
    spdlog::error("worker: {}", e.what());
    return kExitProtocol;
  }
  return kExitDone;
}

int run_pool_worker() { return run_worker(kChildJobFd, kChildAnswerFd); }

}  // namespace evotune
