// Worker processes: start, feed, watch, replace.
#include "worker/worker_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/error.hpp"
#include "ipc/child_process.hpp"
#include "worker/message_codec.hpp"

namespace evotune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxAttempts = 2;

Outcome failure(Status status, std::string message) {
  Outcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

}  // namespace

WorkerPool::WorkerPool(std::vector<std::string> command, std::vector<WorkerSetup> setups,
                       std::chrono::milliseconds setup_limit)
    : command_(std::move(command)), setups_(std::move(setups)), setup_limit_(setup_limit) {
  if (command_.empty() || setups_.empty())
    throw Error("a worker pool needs a command and at least one worker");
  std::signal(SIGPIPE, SIG_IGN);  // a worker that died shows as end of file, not as a signal here
  workers_.resize(setups_.size());
  try {
    for (std::size_t i = 0; i < workers_.size(); ++i) start(workers_[i], setups_[i]);
  } catch (...) {
    for (auto& worker : workers_) stop(worker);
    throw;
  }
}

WorkerPool::~WorkerPool() {
  for (auto& worker : workers_) stop(worker);
}

std::size_t WorkerPool::idle() const {
  return static_cast<std::size_t>(
      std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.job; }));
}

std::size_t WorkerPool::busy() const { return workers_.size() - idle(); }

void WorkerPool::start(Worker& worker, const WorkerSetup& setup) {
  worker = Worker{};
  const ChildProcess child = spawn_child(command_);
  worker.pid = child.pid;
  worker.to_fd = child.to_fd;
  worker.from_fd = child.from_fd;
  const auto give_up = [&](const std::string& why) {
    stop(worker);
    throw Error(why);
  };
  try {
    write_frame(worker.to_fd, encode(setup));
  } catch (const Error&) {
  }
  const auto deadline = Clock::now() + setup_limit_;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
      give_up("the worker process did not set up within " + std::to_string(setup_limit_.count()) + " ms");
    pollfd fd{worker.from_fd, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(left)) < 0 && errno != EINTR)
      give_up(std::string("poll failed: ") + std::strerror(errno));
    const bool open = worker.reader.pull(worker.from_fd);
    if (auto message = worker.reader.next()) {
      const WorkerAnswer answer = decode_answer(*message);
      if (const auto* error = std::get_if<SetupErrorAnswer>(&answer)) give_up(error->message);
      if (!std::holds_alternative<ReadyAnswer>(answer)) give_up("the worker answered before it was set up");
      worker.ready = std::get<ReadyAnswer>(answer);
      return;
    }
    if (!open)
      give_up("the worker process " + describe_exit(reap_child(std::exchange(worker.pid, -1))) +
              " during its set-up");
  }
}

void WorkerPool::stop(Worker& worker) {
  ChildProcess child{std::exchange(worker.pid, -1), std::exchange(worker.to_fd, -1),
                     std::exchange(worker.from_fd, -1)};
  stop_child(child);
}

void WorkerPool::restart(int index) {
  Worker& worker = workers_[index];
  std::optional<PoolJob> job = std::move(worker.job);
  const int attempts = worker.attempts;
  stop(worker);
  ++restarts_;
  start(worker, setups_[index]);
  worker.job = std::move(job);
  worker.attempts = attempts;
}

void WorkerPool::submit(PoolJob job) {
  auto it = std::find_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.job; });
  if (it == workers_.end()) throw Error("no idle worker for a job");
  it->job = std::move(job);
  it->attempts = 0;
  send(*it);
}

void WorkerPool::send(Worker& worker) {
  ++worker.attempts;
  worker.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double, std::milli>(worker.job->deadline_ms));
  try {
    write_frame(worker.to_fd, encode(worker.job->message));
  } catch (const Error& e) {
    spdlog::debug("worker {}: {}", worker.pid, e.what());  // its end of file reports the death
  }
}

std::optional<PoolResult> WorkerPool::read_answers(int index) {
  Worker& worker = workers_[index];
  const bool open = worker.reader.pull(worker.from_fd);
  while (auto message = worker.reader.next()) {
    WorkerAnswer answer = decode_answer(*message);
    auto* done = std::get_if<ResultAnswer>(&answer);
    if (!done || !worker.job || done->ticket != worker.job->message.ticket)
      throw Error("worker " + std::to_string(index) + " sent an unexpected message");
    PoolResult result{done->ticket, index, std::move(done->outcome)};
    worker.job.reset();
    if (!done->healthy) {
      spdlog::debug("worker {} reports its GPU context unusable; starting a fresh one", index);
      restart(index);
    }
    return result;
  }
  if (!open) {
    const std::string why = "the worker process " + describe_exit(reap_child(std::exchange(worker.pid, -1)));
    return on_death(index, why, false);
  }
  return std::nullopt;
}

std::optional<PoolResult> WorkerPool::on_death(int index, const std::string& why, bool killed_for_timeout) {
  Worker& worker = workers_[index];
  if (!worker.job) {
    spdlog::warn("worker {} {} while idle; starting a fresh one", index, why);
    restart(index);
    return std::nullopt;
  }
  const PoolJob& job = *worker.job;
  if (killed_for_timeout) {
    PoolResult result{job.message.ticket, index,
                      failure(Status::timeout,
                              "no answer within " + std::to_string(static_cast<long long>(job.deadline_ms)) +
                                  " ms: the worker was killed (the kernel hung or ran far too long)")};
    worker.job.reset();
    restart(index);
    return result;
  }
  if (worker.attempts < kMaxAttempts) {
    spdlog::warn("worker {} {} during a job; retrying it on a fresh worker", index, why);
    restart(index);
    send(workers_[index]);
    return std::nullopt;
  }
  PoolResult result{job.message.ticket, index,
                    failure(Status::launch_error, why + " while evaluating this variant, " +
                                                      std::to_string(kMaxAttempts) + " times")};
  worker.job.reset();
  restart(index);
  return result;
}

std::vector<PoolResult> WorkerPool::collect(std::chrono::milliseconds wait) {
  std::vector<PoolResult> results;
  const auto until = Clock::now() + wait;
  for (;;) {
    auto now = Clock::now();
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      Worker& worker = workers_[i];
      if (worker.job && now > worker.deadline) {
        kill(worker.pid, SIGKILL);
        reap_child(std::exchange(worker.pid, -1));
        if (auto result = on_death(static_cast<int>(i), "", true)) results.push_back(std::move(*result));
      }
    }
    std::vector<pollfd> fds;
    for (const auto& worker : workers_) fds.push_back({worker.from_fd, POLLIN, 0});
    auto next_event = until;
    for (const auto& worker : workers_)
      if (worker.job) next_event = std::min(next_event, worker.deadline);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_event - Clock::now()).count();
    const int timeout = results.empty() ? static_cast<int>(std::max<long long>(0, left)) : 0;
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR)
      throw Error(std::string("poll failed: ") + std::strerror(errno));
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0)
        if (auto result = read_answers(static_cast<int>(i))) results.push_back(std::move(*result));
    if (!results.empty() || Clock::now() >= until) return results;
  }
}

}  // namespace evotune
