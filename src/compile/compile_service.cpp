// Compile workers: each thread feeds one persistent compiler process (or compiles itself).
#include "compile/compile_service.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "compile/compile_wire.hpp"
#include "core/error.hpp"
#include "ipc/child_process.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune {
namespace {

// NVRTC on the largest attention variants takes seconds; far beyond that it is stuck.
constexpr auto kCompileLimit = std::chrono::minutes(10);
// How often a waiting compile looks whether the service is closing (Ctrl-C should not wait for NVRTC).
constexpr long long kCancelCheckMs = 100;

double milliseconds(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

CompileResult failed(const CompileRequest& request, std::string message) {
  CompileResult result;
  result.status = Status::compile_error;
  result.message = std::move(message);
  result.info.arch = request.arch;
  return result;
}

// One persistent compiler process; restarted after it dies or hangs.
class CompilerChild {
 public:
  CompilerChild(std::vector<std::string> command, const std::atomic<bool>& cancelled)
      : command_(std::move(command)), cancelled_(cancelled) {}
  ~CompilerChild() { stop_child(child_); }

  CompileResult compile(const CompileRequest& request, const std::vector<std::string>& include_dirs,
                        const std::filesystem::path& scratch_dir) {
    const auto start = std::chrono::steady_clock::now();
    std::string why;
    try {
      if (child_.pid <= 0) child_ = spawn_child(command_);
      nlohmann::json message = to_json(request);
      message["include_dirs"] = include_dirs;
      message["scratch_dir"] = scratch_dir.string();
      try {
        write_frame(child_.to_fd, message);
      } catch (const Error&) {  // it died before reading the whole request: its end of file says how
      }
      if (auto answer = await(why)) return compile_result_from_json(*answer);
    } catch (const std::exception& e) {
      why = e.what();
    }
    reader_ = FrameReader();
    const int status = stop_child(child_);
    if (why.empty()) why = describe_exit(status);
    CompileResult result = failed(request, "the compiler process " + why);
    result.info.compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  std::optional<nlohmann::json> await(std::string& why) {
    const auto deadline = std::chrono::steady_clock::now() + kCompileLimit;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        why = "did not answer within " + std::to_string(kCompileLimit.count()) + " minutes";
        return std::nullopt;
      }
      if (cancelled_) {
        why = "was stopped: the compile was cancelled";
        return std::nullopt;
      }
      pollfd fd{child_.from_fd, POLLIN, 0};
      if (poll(&fd, 1, static_cast<int>(std::min<long long>(left.count(), kCancelCheckMs))) < 0 &&
          errno != EINTR)
        throw Error(std::string("poll failed: ") + std::strerror(errno));
      const bool open = reader_.pull(child_.from_fd);
      if (auto answer = reader_.next()) return answer;
      if (!open) return std::nullopt;  // it died: the caller reads why from its exit status
    }
  }

  std::vector<std::string> command_;
  const std::atomic<bool>& cancelled_;
  ChildProcess child_;
  FrameReader reader_;
};

}  // namespace

std::vector<std::string> CompileService::child_command_for(const std::string& executable) {
  if (const char* in_process = std::getenv("EVOTUNE_COMPILE_IN_PROCESS"); in_process && *in_process)
    return {};
  return {executable, "compile-worker"};
}

CompileService::CompileService(const Compiler& compiler, int workers, std::vector<std::string> child_command)
    : compiler_(compiler), child_command_(std::move(child_command)), started_(Clock::now()) {
  // A compiler process that died shows as end of file, not as a signal that ends this process.
  if (!child_command_.empty()) std::signal(SIGPIPE, SIG_IGN);
  const auto count = static_cast<std::size_t>(std::max(1, workers));
  queue_changed_ = started_;
  loads_.resize(count, Load{{}, false, started_});
  for (std::size_t i = 0; i < count; ++i) threads_.emplace_back([this, i] { serve(i); });
}

CompileService::~CompileService() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();  // waiting compiles see closing_ within kCancelCheckMs and stop their child
  for (auto& thread : threads_) thread.join();
  for (auto& job : queue_) job.result.set_value(failed(job.request, "the compile was cancelled"));
}

std::future<CompileResult> CompileService::submit(CompileRequest request) {
  std::future<CompileResult> future;
  {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    queue_changes(now);
    queue_.push_back(Job{std::move(request), {}, now});
    future = queue_.back().result.get_future();
    queue_max_ = std::max(queue_max_, static_cast<std::int64_t>(queue_.size()));
  }
  wake_.notify_one();
  return future;
}

bool CompileService::next_job(Job& job, std::size_t compiler) {
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
  if (closing_) return false;
  const auto now = Clock::now();
  queue_changes(now);
  job = std::move(queue_.front());
  queue_.pop_front();
  queue_wait_ms_ += milliseconds(now - job.submitted);
  Load& load = loads_[compiler];
  load.totals.idle_ms += milliseconds(now - load.since);
  load.busy = true;
  load.since = now;
  return true;
}

void CompileService::compiled(std::size_t compiler) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  Load& load = loads_[compiler];
  load.totals.busy_ms += milliseconds(now - load.since);
  ++load.totals.compiles;
  load.busy = false;
  load.since = now;
}

void CompileService::queue_changes(Clock::time_point now) {
  queue_area_ += static_cast<double>(queue_.size()) * milliseconds(now - queue_changed_);
  queue_changed_ = now;
}

CompileStats CompileService::stats() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  CompileStats stats;
  stats.compilers = static_cast<int>(loads_.size());
  for (const Load& load : loads_) {
    CompilerLoad current = load.totals;
    (load.busy ? current.busy_ms : current.idle_ms) += milliseconds(now - load.since);
    stats.compiles += current.compiles;
    stats.busy_ms += current.busy_ms;
    stats.idle_ms += current.idle_ms;
    stats.per_compiler.push_back(current);
  }
  stats.queue_wait_ms = queue_wait_ms_;
  const double lifetime_ms = milliseconds(now - started_);
  const double area = queue_area_ + static_cast<double>(queue_.size()) * milliseconds(now - queue_changed_);
  stats.queue_mean = lifetime_ms > 0 ? area / lifetime_ms : 0;
  stats.queue_max = queue_max_;
  return stats;
}

void CompileService::serve(std::size_t compiler) {
  std::optional<CompilerChild> child;
  if (!child_command_.empty()) child.emplace(child_command_, closing_);
  const std::filesystem::path scratch = scratch_.subfolder("compiler-" + std::to_string(compiler));
  Job job;
  while (next_job(job, compiler)) {
    CompileResult result = child ? child->compile(job.request, compiler_.include_dirs(), scratch)
                                 : compiler_.compile(job.request, scratch);
    compiled(compiler);
    job.result.set_value(std::move(result));
  }
}

}  // namespace evotune
