// CompileService: a fixed set of compilers working through a queue of requests, each a persistent child
// process (NVRTC state stays apart, a crash or a hang costs one variant) or, without a child command, a
// thread of this process. It keeps the figures that say whether compilers or their feeding are the limit.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compile/compiler.hpp"
#include "core/compile_stats.hpp"
#include "core/scratch_dir.hpp"

namespace evotune {

class CompileService {
 public:
  // `workers` compilers; `child_command` (e.g. {evotune, "compile-worker"}) starts one child process each.
  CompileService(const Compiler& compiler, int workers, std::vector<std::string> child_command);
  ~CompileService();  // finishes nothing: pending requests get a compile_error, children are stopped
  CompileService(const CompileService&) = delete;
  CompileService& operator=(const CompileService&) = delete;

  // Never throws for a bad source; a compiler process that dies or hangs is the request's compile_error.
  std::future<CompileResult> submit(CompileRequest request);
  std::size_t workers() const { return threads_.size(); }
  // Figures since the service started, up to now; callable at any time, from any thread. A request counts
  // once its future is ready.
  CompileStats stats() const;

  // {executable, "compile-worker"}; empty (threads of this process) when EVOTUNE_COMPILE_IN_PROCESS is set,
  // a diagnostic switch to compare the two on a machine.
  static std::vector<std::string> child_command_for(const std::string& executable);

 private:
  using Clock = std::chrono::steady_clock;
  struct Job {
    CompileRequest request;
    std::promise<CompileResult> result;
    Clock::time_point submitted;
  };
  struct Load {
    CompilerLoad totals;
    bool busy = false;
    Clock::time_point since;  // of the current busy or idle stretch
  };
  void serve(std::size_t compiler);
  bool next_job(Job& job, std::size_t compiler);
  void compiled(std::size_t compiler);
  void queue_changes(Clock::time_point now);  // with mutex_ held, before the queue's length changes

  const Compiler& compiler_;
  std::vector<std::string> child_command_;
  ScratchDir scratch_;  // a subfolder for each compiler; removed after the compilers have stopped
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  // Under mutex_: the compilers' loads and the queue's figures.
  Clock::time_point started_;
  std::vector<Load> loads_;
  Clock::time_point queue_changed_;
  double queue_area_ = 0;  // requests x milliseconds waited
  double queue_wait_ms_ = 0;
  std::int64_t queue_max_ = 0;
  std::atomic<bool> closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace evotune
