// Child processes that talk over two pipes: jobs in on the child's fd 3, answers out on its fd 4.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace evotune {

inline constexpr int kChildJobFd = 3;
inline constexpr int kChildAnswerFd = 4;

struct ChildProcess {
  pid_t pid = -1;
  int to_fd = -1;    // write end of the child's fd 3
  int from_fd = -1;  // read end of the child's fd 4, non-blocking
};

// Starts `command` (argv[0] a path). The child gets SIGKILL when the calling thread ends (PR_SET_PDEATHSIG),
// so start children from a thread that outlives them. Throws Error when the process cannot be started.
ChildProcess spawn_child(const std::vector<std::string>& command);
// Closes the pipes, kills the process and waits for it; returns its wait status (-1 when there was none).
int stop_child(ChildProcess& child);
// waitpid, retried on EINTR; the wait status.
int reap_child(pid_t pid);
// "exited with code 3", "was killed by signal 11 (SIGSEGV)".
std::string describe_exit(int wait_status);

}  // namespace evotune
