// The worker's main loop, run in this process over pipes: set-up answers, job answers, exit codes.
#include "worker/worker_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <utility>
#include <vector>

#include "ipc/frame_pipe.hpp"
#include "replay/sweep_fixture.hpp"
#include "store/store_fixture.hpp"
#include "worker/message_codec.hpp"

namespace evotune {
namespace worker_process_test {

// The worker's input and output pipes. Messages are written before the worker runs (they fit in a pipe's
// buffer); its answers are read after it returned.
class WorkerPipes {
 public:
  WorkerPipes() {
    EXPECT_EQ(pipe2(in_, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out_, O_CLOEXEC), 0);
  }
  ~WorkerPipes() {
    for (int fd : {in_[0], in_[1], out_[0], out_[1]})
      if (fd >= 0) close(fd);
  }
  void send(const nlohmann::json& message) { write_frame(in_[1], message); }
  // Closes the worker's input, runs it to the end, and collects its answers.
  int run() {
    close(std::exchange(in_[1], -1));
    const int code = run_worker(in_[0], out_[1]);
    close(std::exchange(out_[1], -1));
    while (auto frame = read_frame(out_[0])) answers.push_back(decode_answer(*frame));
    return code;
  }
  std::vector<WorkerAnswer> answers;

 private:
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
};

TEST(WorkerProcess, UnknownEngineIsASetupErrorAnswer) {
  WorkerPipes pipes;
  pipes.send({{"engine", "quantum"}});
  EXPECT_EQ(pipes.run(), 2);
  ASSERT_EQ(pipes.answers.size(), 1u);
  EXPECT_EQ(std::get<SetupErrorAnswer>(pipes.answers[0]).message,
            "setup message: engine: unknown engine 'quantum'");
}

TEST(WorkerProcess, ReplayWorkerAnswersEachJobWithItsTicketUntilItsInputCloses) {
  store_test::TempDir dir;
  const RecordedSweep sweep = replay_test::small_sweep();
  save_sweep(sweep, dir.file("small.json"));
  WorkerPipes pipes;
  pipes.send(encode(WorkerSetup{ReplaySetup{dir.file("small.json").string(), 0}}));
  const Config config = sweep.results.at(2).params;
  pipes.send(encode(JobMessage{41, config, 77, 1000, "", std::nullopt, {}}));
  pipes.send(encode(JobMessage{42, {{"BLOCK", 96}}, 78, 1000, "", std::nullopt, {}}));
  EXPECT_EQ(pipes.run(), 0);
  ASSERT_EQ(pipes.answers.size(), 3u);
  EXPECT_EQ(std::get<ReadyAnswer>(pipes.answers[0]).device.name, sweep.device.name);
  const auto& first = std::get<ResultAnswer>(pipes.answers[1]);
  EXPECT_EQ(first.ticket, 41);
  EXPECT_EQ(first.outcome.status, Status::ok);
  EXPECT_EQ(first.outcome.timing->median_us, sweep.results.at(2).timing->median_us);
  EXPECT_EQ(first.outcome.validation_seed, 77u);
  EXPECT_TRUE(first.healthy);
  const auto& second = std::get<ResultAnswer>(pipes.answers[2]);
  EXPECT_EQ(second.ticket, 42);
  EXPECT_EQ(second.outcome.status, Status::launch_error);
}

TEST(WorkerProcess, MalformedJobEndsTheWorkerWithTheProtocolExitCode) {
  store_test::TempDir dir;
  save_sweep(replay_test::small_sweep(), dir.file("small.json"));
  WorkerPipes pipes;
  pipes.send(encode(WorkerSetup{ReplaySetup{dir.file("small.json").string(), 0}}));
  pipes.send({{"ticket", 1}});
  EXPECT_EQ(pipes.run(), 4);
  ASSERT_EQ(pipes.answers.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ReadyAnswer>(pipes.answers[0]));
}

}  // namespace worker_process_test
}  // namespace evotune
