// Child processes on two pipes: fds 3 and 4 wired, stopping, reaping and describing how a child ended.
#include "ipc/child_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <vector>

#include "core/error.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune {
namespace child_process_test {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Messages from the child until `count` arrived, or until its end of file (then `open` is false).
struct Received {
  std::vector<json> messages;
  bool open = true;
};

Received receive(const ChildProcess& child, std::size_t count) {
  Received received;
  FrameReader reader;
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (received.messages.size() < count && received.open && Clock::now() < give_up) {
    pollfd fd{child.from_fd, POLLIN, 0};
    poll(&fd, 1, 100);
    received.open = reader.pull(child.from_fd);
    while (auto message = reader.next()) received.messages.push_back(*message);
  }
  return received;
}

// Closes our end of the job pipe and waits for the child to end by itself; its wait status.
int finish(ChildProcess& child) {
  close(std::exchange(child.to_fd, -1));
  const int status = reap_child(std::exchange(child.pid, -1));
  stop_child(child);  // closes the answer pipe
  return status;
}

int run_to_end(const std::string& script) {
  ChildProcess child = spawn_child({"/bin/sh", "-c", script});
  return finish(child);
}

TEST(ChildProcess, EchoesFramesFromFd3ToFd4) {
  ChildProcess child = spawn_child({"/bin/sh", "-c", "cat <&3 >&4"});
  ASSERT_GT(child.pid, 0);
  const json first = {{"ticket", 1}, {"cubin", json::binary({0, 1, 0, 255})}};
  const json second = {{"ticket", 2}, {"text", std::string(100000, 'k')}};  // beyond one pipe buffer
  write_frame(child.to_fd, first);
  const Received one = receive(child, 1);
  ASSERT_EQ(one.messages.size(), 1u);
  EXPECT_EQ(one.messages[0], first);
  write_frame(child.to_fd, second);
  const Received two = receive(child, 1);
  ASSERT_EQ(two.messages.size(), 1u);
  EXPECT_EQ(two.messages[0], second);

  close(std::exchange(child.to_fd, -1));  // cat sees end of file and ends: so does its answer pipe
  const Received rest = receive(child, 1);
  EXPECT_TRUE(rest.messages.empty());
  EXPECT_FALSE(rest.open);
  const int status = reap_child(std::exchange(child.pid, -1));
  EXPECT_EQ(describe_exit(status), "exited with code 0");
  EXPECT_EQ(stop_child(child), -1);  // no process left, only the pipe to close
  EXPECT_EQ(child.from_fd, -1);
}

TEST(ChildProcess, ParentEndsAreCloseOnExecAndTheAnswerEndNonBlocking) {
  ChildProcess child = spawn_child({"/bin/sh", "-c", "cat <&3 >/dev/null"});
  EXPECT_TRUE(fcntl(child.from_fd, F_GETFL) & O_NONBLOCK);
  EXPECT_FALSE(fcntl(child.to_fd, F_GETFL) & O_NONBLOCK);   // write_frame blocks until the child reads
  EXPECT_TRUE(fcntl(child.from_fd, F_GETFD) & FD_CLOEXEC);  // a second child must not hold them open
  EXPECT_TRUE(fcntl(child.to_fd, F_GETFD) & FD_CLOEXEC);
  EXPECT_EQ(describe_exit(finish(child)), "exited with code 0");
}

TEST(ChildProcess, ChildSeesPipesOnFd3AndFd4) {
  EXPECT_EQ(describe_exit(run_to_end("test -p /dev/fd/3 && test -p /dev/fd/4 && exit 7")),
            "exited with code 7");
}

TEST(ChildProcess, StopChildKillsARunningChildAndResetsIt) {
  ChildProcess child = spawn_child({"/bin/sleep", "30"});
  const auto start = Clock::now();
  const int status = stop_child(child);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(describe_exit(status), "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(child.pid, -1);
  EXPECT_EQ(child.to_fd, -1);
  EXPECT_EQ(child.from_fd, -1);
  EXPECT_EQ(stop_child(child), -1);  // twice is harmless
}

TEST(ChildProcess, DescribeExitNamesCodesAndSignals) {
  EXPECT_EQ(describe_exit(run_to_end("exit 3")), "exited with code 3");
  EXPECT_EQ(describe_exit(run_to_end("exit 0")), "exited with code 0");
  EXPECT_EQ(describe_exit(run_to_end("kill -SEGV $$")), "was killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(describe_exit(run_to_end("kill -ABRT $$")), "was killed by signal 6 (SIGABRT)");
  EXPECT_EQ(describe_exit(-1), "is gone");
}

TEST(ChildProcess, ProgramThatCannotBeExecutedExitsWith127) {
  ChildProcess child = spawn_child({"/nonexistent/evotune-worker"});
  EXPECT_EQ(describe_exit(finish(child)), "exited with code 127");
}

TEST(ChildProcess, EmptyCommandIsAnError) { EXPECT_THROW(spawn_child({}), Error); }

TEST(ChildProcess, ReapChildOfNoChildIsMinusOne) { EXPECT_EQ(reap_child(getpid()), -1); }

}  // namespace child_process_test
}  // namespace evotune
