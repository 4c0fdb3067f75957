// fork/exec with two pipes, and the one-shot request/answer exchange.
#include "ipc/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evotune {
namespace {

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(pid_t parent, int job_read, int answer_write, char* const* argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(126);
  const int job = fcntl(job_read, F_DUPFD, 10);
  const int answer = fcntl(answer_write, F_DUPFD, 10);
  if (job < 0 || answer < 0 || dup2(job, kChildJobFd) < 0 || dup2(answer, kChildAnswerFd) < 0) _exit(126);
  close(job);
  close(answer);
  execv(argv[0], argv);
  _exit(127);
}

}  // namespace

ChildProcess spawn_child(const std::vector<std::string>& command) {
  if (command.empty()) throw Error("no command for a child process");
  int job_pipe[2], answer_pipe[2];
  if (pipe2(job_pipe, O_CLOEXEC) != 0)
    throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (pipe2(answer_pipe, O_CLOEXEC) != 0) {
    close(job_pipe[0]);
    close(job_pipe[1]);
    throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> words = command;
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) exec_child(parent, job_pipe[0], answer_pipe[1], argv.data());
  close(job_pipe[0]);
  close(answer_pipe[1]);
  if (pid < 0) {
    close(job_pipe[1]);
    close(answer_pipe[0]);
    throw Error(std::string("cannot start ") + command[0] + ": " + std::strerror(errno));
  }
  fcntl(answer_pipe[0], F_SETFL, fcntl(answer_pipe[0], F_GETFL) | O_NONBLOCK);
  return {pid, job_pipe[1], answer_pipe[0]};
}

int reap_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

int stop_child(ChildProcess& child) {
  if (child.to_fd >= 0) close(std::exchange(child.to_fd, -1));
  if (child.from_fd >= 0) close(std::exchange(child.from_fd, -1));
  if (child.pid <= 0) return -1;
  kill(child.pid, SIGKILL);
  return reap_child(std::exchange(child.pid, -1));
}

std::string describe_exit(int status) {
  if (status == -1) return "is gone";
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return "was killed by signal " + std::to_string(WTERMSIG(status)) +
           (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended (status " + std::to_string(status) + ")";
}

}  // namespace evotune
