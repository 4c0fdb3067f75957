// CompileService: a fixed set of compilers working through a queue of requests, each a persistent child
// process (NVRTC state stays apart, a crash or a hang costs one variant) or, without a child command, a
// thread of this process.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compile/compiler.hpp"

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

  // {executable, "compile-worker"}; empty (threads of this process) when EVOTUNE_COMPILE_IN_PROCESS is set,
  // a diagnostic switch to compare the two on a machine.
  static std::vector<std::string> child_command_for(const std::string& executable);

 private:
  struct Job {
    CompileRequest request;
    std::promise<CompileResult> result;
  };
  void serve();
  bool next_job(Job& job);

  const Compiler& compiler_;
  std::vector<std::string> child_command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::atomic<bool> closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace evotune
