// End to end on a GPU: tuning the fault space stores every failure with its status, quickly, and only once;
// compute-sanitizer names the faults it can see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace fault_space_test {

// tests/data/spaces/faults.json: FAULT selects the behaviour (faults.cu says how each one fails).
//
//  FAULT  behaviour                                              expected status
//    0    VEC elements per thread (VEC 1 and 4)                  ok
//    1    grid-stride loop (VEC 1 and 4)                         ok
//    2    a float assigned to a float*                           compile_error
//    3    twice the device's dynamic shared memory per block     resource_error
//    4    blocks of twice the device's maximum thread count      resource_error
//    5    stores through a wild pointer                          launch_error (illegal address)
//    6    float4 loads from x + 1                                launch_error (misaligned address)
//    7    stores 2^36 elements past the end of out               launch_error (illegal address)
//    8    two warps each wait for the other's flag (deadlock)    timeout
//    9    spins on a volatile read that never changes            timeout
//   10    out = a * x + 0.5                                      wrong_result
//   11    every 8th element left unwritten                       nan
//   12    NaN written into every 8th element                     nan
//   13    also writes out[n]                                     out_of_bounds (after 'out', at its end)
//   14    also writes out[-1]                                    out_of_bounds (before 'out')
//   15    also overwrites its input x                            wrong_result (wrote into input 'x')
//   16    float atomics from four warps in any order             nondeterministic
//   17    shared-memory staging read without a barrier           wrong_result or nondeterministic
//   18    replays its first result on every later launch         wrong_result (second validation round)
//   19    leaves its work to a child grid (device-side launch)   compile_error (no device runtime is linked)
//   20    handles whole blocks only                              nan at the extra problem N + 1
struct Expected {
  const char* status;
  const char* message_keyword;  // a word the stored reason must contain ("" for ok, or where it may vary)
  const char* other_status = nullptr;  // a race may show either way
};
const std::map<int, Expected> kExpected{
    {0, {"ok", ""}},
    {1, {"ok", ""}},
    {2, {"compile_error", "float *"}},
    {3, {"resource_error", "shared memory"}},
    {4, {"resource_error", "threads"}},
    {5, {"launch_error", "ILLEGAL_ADDRESS"}},
    {6, {"launch_error", "MISALIGNED_ADDRESS"}},
    {7, {"launch_error", "ILLEGAL_ADDRESS"}},
    {8, {"timeout", ""}},
    {9, {"timeout", ""}},
    {10, {"wrong_result", "max_abs"}},
    {11, {"nan", "NaN"}},
    {12, {"nan", "NaN"}},
    {13, {"out_of_bounds", "after its end changed, the nearest at byte 4194304 (0 past the end"}},
    {14, {"out_of_bounds", "before its start"}},
    {15, {"wrong_result", "wrote into the read-only input 'x'"}},
    {16, {"nondeterministic", "two launches on the same inputs differ"}},
    {17, {"wrong_result", "", "nondeterministic"}},
    {18, {"wrong_result", "validation round 2 of 2"}},
    {19, {"compile_error", "device-side kernel launch"}},
    {20, {"nan", "1 of 1048577 output elements are NaN/Inf (unwritten or non-finite) (at N=1048577)"}},
};
constexpr std::size_t kValidConfigs = 23;  // FAULT 0 and 1 with VEC 1 and 4, every other FAULT with VEC 1
constexpr double kRunLimitSeconds = 60;

const std::string kSpace = "tests/data/spaces/faults.json";

class FaultSpace : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    dir_ = std::filesystem::temp_directory_path() / ("evotune_fault_space_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "faults.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs an exhaustive tune with a short launch timeout, so that the two hangs end quickly.
  test::CommandResult tune(double* seconds) const {
    const auto start = std::chrono::steady_clock::now();
    auto result =
        test::run_evotune("tune " + kSpace + " --db " + db_ + " --strategy exhaustive --timeout-ms 2000");
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::vector<nlohmann::json> stored() const {
    const auto best = test::run_evotune("best " + kSpace + " --db " + db_ + " --json --failed --top 100");
    EXPECT_EQ(best.exit_code, 0) << best.err;
    return nlohmann::json::parse(best.out).get<std::vector<nlohmann::json>>();
  }

  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(FaultSpace, EveryFaultEndsWithItsStatusAndIsNeverMeasuredTwice) {
  double seconds = 0;
  const auto first = tune(&seconds);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_LT(seconds, kRunLimitSeconds) << first.err;
  std::printf("fault space: exhaustive tune took %.1f s\n", seconds);

  const auto results = stored();
  ASSERT_EQ(results.size(), kValidConfigs) << first.err;
  std::map<int, int> seen;
  for (const auto& r : results) {
    const int fault = r.at("params").at("FAULT").get<int>();
    ++seen[fault];
    ASSERT_TRUE(kExpected.contains(fault)) << r.dump();
    const Expected& expected = kExpected.at(fault);
    const std::string status = r.at("status");
    EXPECT_TRUE(status == expected.status || (expected.other_status && status == expected.other_status))
        << "FAULT=" << fault << ": " << r.dump();
    if (status == "ok") {
      ASSERT_TRUE(r.at("time_us").is_number()) << r.dump();
      EXPECT_GT(r.at("time_us").get<double>(), 0.0) << r.dump();
    } else {
      EXPECT_TRUE(r.at("time_us").is_null()) << r.dump();
      EXPECT_FALSE(r.at("message").get<std::string>().empty()) << r.dump();
      EXPECT_NE(r.at("message").get<std::string>().find(expected.message_keyword), std::string::npos)
          << "FAULT=" << fault << ": " << r.dump();
    }
  }
  for (const auto& [fault, expected] : kExpected)
    EXPECT_EQ(seen[fault], fault <= 1 ? 2 : 1) << "FAULT=" << fault << " (" << expected.status << ")";

  const auto second = tune(&seconds);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_LT(seconds, kRunLimitSeconds) << second.err;
  EXPECT_NE(second.err.find(std::to_string(kValidConfigs) + " already measured"), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find(": 0 evaluated"), std::string::npos) << second.err;
  EXPECT_EQ(stored(), results);
}

// compute-sanitizer on stored configs: the wild store (FAULT 5) under memcheck and the missing barrier
// (FAULT 17) under racecheck are named; the correct kernel is clean under all four tools; `tune
// --sanitize-top` runs them on the fastest config; `show` lists what was kept.
TEST_F(FaultSpace, SanitizerNamesTheFaultAndKeepsItsFindings) {
  double seconds = 0;
  const auto tuned = tune(&seconds);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  std::map<int, long long> config_of;  // VEC 1 configs by FAULT
  for (const auto& r : stored())
    if (r.at("params").at("VEC") == 1) config_of[r.at("params").at("FAULT").get<int>()] = r.at("config_id");

  const auto sanitize = [&](int fault, const std::string& tools) {
    const auto result =
        test::run_evotune("sanitize " + kSpace + " --db " + db_ + " --config " +
                          std::to_string(config_of.at(fault)) + " --tools " + tools + " --limit-s 240");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::printf("FAULT=%d:\n%s", fault, result.out.c_str());
    return result.out;
  };
  const std::string wild = sanitize(5, "memcheck");
  EXPECT_NE(wild.find("memcheck   findings"), std::string::npos) << wild;
  EXPECT_NE(wild.find("Invalid __global__ write"), std::string::npos) << wild;
  const std::string race = sanitize(17, "racecheck");
  EXPECT_NE(race.find("racecheck  findings"), std::string::npos) << race;
  const std::string clean = sanitize(0, "memcheck,racecheck,synccheck,initcheck");
  for (const char* tool : {"memcheck ", "racecheck", "synccheck", "initcheck"})
    EXPECT_NE(clean.find(std::string(tool) + "  clean"), std::string::npos) << tool << "\n" << clean;

  const auto top = test::run_evotune("tune " + kSpace + " --db " + db_ + " --sanitize-top 1");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("compute-sanitizer, config"), std::string::npos) << top.out;
  EXPECT_EQ(top.out.find("findings"), std::string::npos) << top.out;

  const auto shown = test::run_evotune("show " + std::to_string(config_of.at(5)) + " --db " + db_);
  EXPECT_NE(shown.out.find("compute-sanitizer"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Invalid __global__ write"), std::string::npos) << shown.out;
}

// The evaluator says out_of_bounds for a write past `out` (FAULT 13) or before it (FAULT 14), and memcheck
// must say so too: `sanitize` allocates every buffer at exactly its size, so the stray write leaves the
// allocation (the evaluator's guard margins, inside it, hid it: "clean, 0 errors"), and the finding names
// the buffer from the allocations the worker logged.
TEST_F(FaultSpace, SanitizerSeesAWritePastItsOutputAndNamesTheBuffer) {
  double seconds = 0;
  const auto tuned = tune(&seconds);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  std::map<int, long long> config_of;
  for (const auto& r : stored())
    if (r.at("params").at("VEC") == 1) config_of[r.at("params").at("FAULT").get<int>()] = r.at("config_id");
  for (const auto& [fault, side] : {std::pair{13, "after its end"}, std::pair{14, "before its start"}}) {
    const auto result =
        test::run_evotune("sanitize " + kSpace + " --db " + db_ + " --config " +
                          std::to_string(config_of.at(fault)) + " --tools memcheck --limit-s 240");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::printf("FAULT=%d:\n%s", fault, result.out.c_str());
    EXPECT_NE(result.out.find("memcheck   findings"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("Invalid __global__ write"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("buffer 'out' (variant)"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(side), std::string::npos) << result.out;
    const auto shown = test::run_evotune("show " + std::to_string(config_of.at(fault)) + " --db " + db_);
    EXPECT_NE(shown.out.find("buffer 'out' (variant)"), std::string::npos) << shown.out;
  }
}

}  // namespace fault_space_test
}  // namespace evotune
