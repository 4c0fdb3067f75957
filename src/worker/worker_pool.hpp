// WorkerPool: the tuning process's side of its worker processes (one per GPU): starts them, hands each one
// job at a time, and turns a worker that crashes, hangs or reports its GPU context unusable into an outcome
// for that job and a fresh worker for the next.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "ipc/frame_pipe.hpp"
#include "worker/messages.hpp"

namespace evotune {

struct PoolJob {
  JobMessage message;      // its ticket names the job in the PoolResult
  double deadline_ms = 0;  // the worker is killed and the job is a timeout when no answer comes in time
};

struct PoolResult {
  std::int64_t ticket = 0;
  int worker = 0;
  Outcome outcome;
};

class WorkerPool {
 public:
  // Starts one worker per setup message: `command` (e.g. {"/proc/self/exe", "worker"}) with the job pipe on
  // fd 3 and the answer pipe on fd 4. Waits until every worker is ready; throws Error (the worker's own
  // one-line reason) when one cannot set up.
  WorkerPool(std::vector<std::string> command, std::vector<WorkerSetup> setups,
             std::chrono::milliseconds setup_limit = std::chrono::seconds(120));
  ~WorkerPool();  // kills the workers
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t size() const { return workers_.size(); }
  std::size_t idle() const;
  std::size_t busy() const;
  // What worker i said when it became ready: its device and the reference kernel's time there.
  const ReadyAnswer& ready(int worker) const { return workers_[worker].ready; }
  pid_t pid(int worker) const { return workers_[worker].pid; }
  int restarts() const { return restarts_; }

  // Hands the job to an idle worker; Error when none is idle.
  void submit(PoolJob job);
  // Waits up to `wait` for answers; returns every job finished by then (possibly none). A worker that died
  // without an answer (killed from outside, or a crash of its own) gets its job once more on a fresh worker;
  // a second death is the job's launch_error. Throws Error when no worker can be started any more.
  std::vector<PoolResult> collect(std::chrono::milliseconds wait);

 private:
  struct Worker {
    pid_t pid = -1;
    int to_fd = -1, from_fd = -1;
    FrameReader reader;
    ReadyAnswer ready;
    std::optional<PoolJob> job;
    int attempts = 0;  // starts of the current job
    std::chrono::steady_clock::time_point deadline;
  };
  void start(Worker& worker, const WorkerSetup& setup);
  void stop(Worker& worker);
  void restart(int index);
  void send(Worker& worker);
  std::optional<PoolResult> read_answers(int index);
  std::optional<PoolResult> on_death(int index, const std::string& why, bool killed_for_timeout);

  std::vector<std::string> command_;
  std::vector<WorkerSetup> setups_;
  std::chrono::milliseconds setup_limit_;
  std::vector<Worker> workers_;
  int restarts_ = 0;
};

}  // namespace evotune
