// fork/exec into a new process group, output redirected to files, waitpid polled against a deadline.
#include "ipc/captured_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace evotune {
namespace {

int open_for_output(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(file.string() + ": cannot write (" + std::strerror(errno) + ")");
  return fd;
}

}  // namespace

CapturedRun run_captured(const std::vector<std::string>& command, const std::filesystem::path& out,
                         const std::filesystem::path& err, std::chrono::milliseconds limit) {
  if (command.empty()) throw Error("no command to run");
  const int out_fd = open_for_output(out);
  const int err_fd = open_for_output(err);
  std::vector<std::string> words = command;
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) _exit(126);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  close(out_fd);
  close(err_fd);
  if (pid < 0) throw Error("cannot start " + command[0] + ": " + std::strerror(fork_errno));
  setpgid(pid, pid);  // also here, so the group exists whichever process runs first

  CapturedRun run;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const pid_t done = waitpid(pid, &run.wait_status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      run.wait_status = -1;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      run.timed_out = true;
      kill(-pid, SIGKILL);
      while (waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // whatever the command left running in its group
  return run;
}

}  // namespace evotune
