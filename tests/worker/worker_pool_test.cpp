// WorkerPool driving real `evotune worker` processes with the replay engine: answers, crashes, hangs, set-up.
#include "worker/worker_pool.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "replay/sweep_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace worker_pool_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::filesystem::path kRecordedSweep = "tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json";

std::vector<std::string> worker_command() { return {test::evotune_binary(), "worker"}; }

PoolJob job(std::int64_t ticket, const Config& config, double deadline_ms = 20000) {
  return {{ticket,
           config,
           std::uint64_t{1000} + static_cast<std::uint64_t>(ticket),
           1000.0,
           "",
           std::nullopt,
           {}},
          deadline_ms};
}

// `workers` replay workers answering from `sweep_file`, each answer after delay_ms.
std::vector<WorkerSetup> replay_setups(const std::filesystem::path& sweep_file, double delay_ms,
                                       int workers) {
  return std::vector<WorkerSetup>(static_cast<std::size_t>(workers),
                                  ReplaySetup{sweep_file.string(), delay_ms});
}

// Collects until `count` answers came, or 10 s passed.
std::vector<PoolResult> collect_all(WorkerPool& pool, std::size_t count) {
  std::vector<PoolResult> results;
  const auto give_up = Clock::now() + 10s;
  while (results.size() < count && Clock::now() < give_up)
    for (auto& result : pool.collect(100ms)) results.push_back(std::move(result));
  return results;
}

void expect_recorded(const Outcome& outcome, const RecordedResult& recorded) {
  EXPECT_EQ(outcome.status, recorded.status);
  EXPECT_EQ(outcome.message, recorded.message);
  ASSERT_EQ(outcome.timing.has_value(), recorded.timing.has_value());
  if (recorded.timing) {
    EXPECT_EQ(outcome.timing->median_us, recorded.timing->median_us);
  }
}

// The small hand-made sweep (three ok results and a resource_error) in a file of its own.
class WorkerPoolTest : public ::testing::Test {
 protected:
  WorkerPoolTest()
      : dir(std::filesystem::temp_directory_path() / ("evotune_pool_" + std::to_string(getpid()))),
        sweep(replay_test::small_sweep()) {
    std::filesystem::create_directories(dir);
    save_sweep(sweep, sweep_file());
  }
  ~WorkerPoolTest() override { std::filesystem::remove_all(dir); }

  std::filesystem::path sweep_file() const { return dir / "small.json"; }
  const RecordedResult& recorded(std::size_t i) const { return sweep.results.at(i); }

  std::filesystem::path dir;
  RecordedSweep sweep;
};

TEST_F(WorkerPoolTest, TwoWorkersAnswerWithTheRecordedOutcomesInParallel) {
  const RecordedSweep recorded_sweep = load_sweep(kRecordedSweep);
  const RecordedResult& first = recorded_sweep.results.at(3);
  const RecordedResult& second = recorded_sweep.results.at(1500);
  WorkerPool pool(worker_command(), replay_setups(kRecordedSweep, 300, 2));
  ASSERT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.ready(0).device.name, recorded_sweep.device.name);
  EXPECT_EQ(pool.ready(1).device.arch(), recorded_sweep.device.arch());
  EXPECT_EQ(pool.ready(0).reference_ms, 0.0);
  EXPECT_NE(pool.pid(0), pool.pid(1));

  const auto start = Clock::now();
  pool.submit(job(11, first.params));
  pool.submit(job(12, second.params));
  EXPECT_EQ(pool.busy(), 2u);
  EXPECT_EQ(pool.idle(), 0u);
  auto results = collect_all(pool, 2);
  const auto elapsed = Clock::now() - start;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_LT(elapsed, 550ms);  // one after the other would take 600 ms
  std::sort(results.begin(), results.end(), [](auto& a, auto& b) { return a.ticket < b.ticket; });
  EXPECT_EQ(results[0].ticket, 11);
  EXPECT_EQ(results[1].ticket, 12);
  EXPECT_NE(results[0].worker, results[1].worker);
  expect_recorded(results[0].outcome, first);
  expect_recorded(results[1].outcome, second);
  EXPECT_EQ(results[0].outcome.validation_seed, 1011u);
  EXPECT_EQ(results[1].outcome.validation_seed, 1012u);
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.restarts(), 0);
}

TEST_F(WorkerPoolTest, RecordedFailuresAndUnknownConfigsComeBackAsOutcomes) {
  WorkerPool pool(worker_command(), replay_setups(sweep_file(), 0, 1));
  pool.submit(job(1, recorded(1).params));  // a recorded resource_error, message of two lines
  auto results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome.status, Status::resource_error);
  expect_recorded(results[0].outcome, recorded(1));

  const Config unknown{{"BLOCK", 96}, {"ITEMS", 3}};
  pool.submit(job(2, unknown));
  results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, 2);
  EXPECT_EQ(results[0].outcome.status, Status::launch_error);
  EXPECT_EQ(results[0].outcome.message, "not in the recorded sweep: " + canonical_json(unknown));
  EXPECT_FALSE(results[0].outcome.timing);
  EXPECT_EQ(pool.restarts(), 0);
}

TEST_F(WorkerPoolTest, WorkerKilledWhileBusyHasItsJobRetriedOnAFreshWorker) {
  WorkerPool pool(worker_command(), replay_setups(sweep_file(), 300, 1));
  const pid_t first_pid = pool.pid(0);
  pool.submit(job(7, recorded(0).params));
  std::this_thread::sleep_for(50ms);
  ASSERT_EQ(kill(first_pid, SIGKILL), 0);
  const auto results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, 7);
  expect_recorded(results[0].outcome, recorded(0));
  EXPECT_EQ(pool.restarts(), 1);
  EXPECT_NE(pool.pid(0), first_pid);
  EXPECT_EQ(pool.idle(), 1u);
}

TEST_F(WorkerPoolTest, JobWhoseWorkerIsKilledTwiceIsALaunchError) {
  WorkerPool pool(worker_command(), replay_setups(sweep_file(), 300, 1));
  const pid_t first_pid = pool.pid(0);
  pool.submit(job(8, recorded(0).params));
  ASSERT_EQ(kill(first_pid, SIGKILL), 0);
  EXPECT_TRUE(pool.collect(150ms).empty());  // the retry is running on a fresh worker
  const pid_t second_pid = pool.pid(0);
  ASSERT_NE(second_pid, first_pid);
  ASSERT_EQ(kill(second_pid, SIGKILL), 0);
  auto results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, 8);
  EXPECT_EQ(results[0].outcome.status, Status::launch_error);
  EXPECT_NE(results[0].outcome.message.find("was killed by signal 9 (SIGKILL)"), std::string::npos)
      << results[0].outcome.message;
  EXPECT_EQ(pool.restarts(), 2);

  pool.submit(job(9, recorded(2).params));  // the third worker answers
  results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  expect_recorded(results[0].outcome, recorded(2));
}

TEST_F(WorkerPoolTest, WorkerThatStopsAnsweringIsATimeoutAndIsReplaced) {
  WorkerPool pool(worker_command(), replay_setups(sweep_file(), 300, 1));
  const pid_t stopped_pid = pool.pid(0);
  const auto start = Clock::now();
  pool.submit(job(21, recorded(0).params, 500));
  ASSERT_EQ(kill(stopped_pid, SIGSTOP), 0);
  auto results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_GE(Clock::now() - start, 500ms);
  EXPECT_EQ(results[0].ticket, 21);
  EXPECT_EQ(results[0].outcome.status, Status::timeout);
  EXPECT_NE(results[0].outcome.message.find("no answer within 500 ms"), std::string::npos)
      << results[0].outcome.message;
  EXPECT_EQ(pool.restarts(), 1);
  EXPECT_NE(pool.pid(0), stopped_pid);
  EXPECT_EQ(kill(stopped_pid, 0), -1);  // killed and reaped, not left stopped

  pool.submit(job(22, recorded(2).params));
  results = collect_all(pool, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, 22);
  expect_recorded(results[0].outcome, recorded(2));
}

TEST_F(WorkerPoolTest, SetupErrorThrowsTheWorkersOneLineReason) {
  const auto missing = dir / "no_such_sweep.json";
  try {
    WorkerPool pool(worker_command(), replay_setups(missing, 0, 2));
    FAIL() << "a pool whose workers cannot read their sweep started";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(missing.string()), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  std::ofstream(dir / "wrong.json") << R"({"format": "evotune-sweep-v0"})";
  try {
    WorkerPool pool(worker_command(), replay_setups(dir / "wrong.json", 0, 1));
    FAIL() << "a pool whose workers cannot parse their sweep started";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("wrong.json"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(WorkerPool(worker_command(), std::vector<WorkerSetup>{}), Error);
}

TEST_F(WorkerPoolTest, SubmitWithNoIdleWorkerThrows) {
  WorkerPool pool(worker_command(), replay_setups(sweep_file(), 0, 1));
  pool.submit(job(31, recorded(0).params));
  EXPECT_THROW(pool.submit(job(32, recorded(2).params)), Error);
  const auto results = collect_all(pool, 1);  // the first job is unaffected
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].ticket, 31);
  expect_recorded(results[0].outcome, recorded(0));
  EXPECT_EQ(pool.idle(), 1u);
}

}  // namespace worker_pool_test
}  // namespace evotune
