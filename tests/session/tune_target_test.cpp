// The replay target: what it takes from the sweep, its workers, and the sweeps it refuses.
#include "session/tune_target.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "session/saxpy_replay_fixture.hpp"

namespace evotune {
namespace tune_target_test {

// A target whose GPUs report given clock reasons.
class ReasonsTarget final : public TuneTarget {
 public:
  explicit ReasonsTarget(std::vector<std::uint64_t> reasons)
      : TuneTarget({}, "13.0"), reasons_(std::move(reasons)) {}
  bool compiles_variants() const override { return false; }
  std::string where() const override { return "test"; }
  std::vector<WorkerSetup> worker_setups(VariantCompiler*) const override { return {}; }
  std::string describe_ready(double) const override { return {}; }
  std::vector<GpuState> gpu_states() const override {
    std::vector<GpuState> states(reasons_.size());
    for (std::size_t i = 0; i < states.size(); ++i) states[i].clock_reasons = reasons_[i];
    return states;
  }

 private:
  std::vector<std::uint64_t> reasons_;
};

TEST(ThrottleNote, NamesEachGpuWhoseClocksAreHeldDown) {
  EXPECT_EQ(ReasonsTarget({}).throttle_note(), "");
  EXPECT_EQ(ReasonsTarget({0x1, 0x2}).throttle_note(), "");  // idle, application clocks
  EXPECT_EQ(ReasonsTarget({0x1, 0x4 | 0x20}).throttle_note(), "GPU 1 throttled (sw_power_cap,sw_thermal)");
  EXPECT_EQ(ReasonsTarget({0x40, 0x80}).throttle_note(),
            "GPU 0 throttled (hw_thermal), GPU 1 throttled (power_brake)");
}

class ReplayTarget : public session_test::SaxpyReplay {
 protected:
  std::string refusal(const RecordedSweep& recorded) {
    save_sweep(recorded, *options.replay_file);
    try {
      replay_target(options, space, sizes);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(ReplayTarget, StoresUnderTheSweepsDeviceAndCompilesNothing) {
  RecordedSweep recorded = sweep();
  recorded.nvrtc_version = "12.6";
  save_sweep(recorded, *options.replay_file);
  options.replay_workers = 3;
  const auto target = find_target(options, space, sizes);
  EXPECT_EQ(target->device().name, recorded.device.name);
  EXPECT_EQ(target->nvrtc_version(), "12.6");
  EXPECT_FALSE(target->compiles_variants());
  EXPECT_EQ(target->where(), "replay of " + options.replay_file->string());
  const auto setups = target->worker_setups(nullptr);
  ASSERT_EQ(setups.size(), 3u);
  const auto* replay = std::get_if<ReplaySetup>(&setups[0]);
  ASSERT_NE(replay, nullptr);
  EXPECT_EQ(replay->sweep_file, options.replay_file->string());
  EXPECT_EQ(target->describe_ready(0), "");
}

TEST_F(ReplayTarget, RefusesASweepOfAnotherSpaceOrProblem) {
  RecordedSweep other_space = sweep();
  other_space.space_name = "gemm";
  EXPECT_EQ(refusal(other_space),
            "--replay " + options.replay_file->string() + " records space 'gemm', not 'saxpy'");
  RecordedSweep other_problem = sweep();
  other_problem.problem["N"] = 64;
  const std::string problem = key_value_text(other_problem.problem);
  EXPECT_EQ(refusal(other_problem), "--replay " + options.replay_file->string() + " records problem " +
                                        problem + ", not " + key_value_text(sizes) + " (pass --problem " +
                                        problem + ")");
}

}  // namespace tune_target_test
}  // namespace evotune
