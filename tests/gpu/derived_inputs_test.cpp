// Inputs derived from other inputs on a GPU (tests/data/spaces/derived_inputs.json: y = 2 x + 1 computed by
// the space's DerivedInputs kernel, out = y - 2 x against a reference that writes 1): a variant passes only
// where y was derived from the same round's x, in every round (random, special, the extra problem, exact-size
// buffers), in `eval` and in a tune's workers; a variant that writes into y is caught by its checksum; a
// DerivedInputs kernel that misbehaves (writes another input or past its buffer, faults) stops the run as an
// error of the space.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace derived_inputs_test {

const std::string kSpace = "tests/data/spaces/derived_inputs.json";

nlohmann::json eval_json(const std::string& space, const std::string& params, const std::string& extra = "") {
  const auto result = test::run_evotune("eval tests/data/spaces/derived_inputs.cu --space " + space +
                                        " --json --timeout-ms 5000 --params " + params + extra);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json{};
}

class DerivedInputsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    dir_ = std::filesystem::temp_directory_path() / ("evotune_derived_inputs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The space with its DerivedInputs kernel replaced by `source` (kernel derive_y), in the test's folder.
  std::string space_with_derive(const std::string& source) const {
    std::ifstream in(kSpace);
    auto json = nlohmann::ordered_json::parse(in);
    const std::filesystem::path folder = std::filesystem::absolute("tests/data/spaces");
    json["KernelSpecification"]["KernelFile"] = (folder / "derived_inputs.cu").string();
    json["Reference"]["KernelFile"] = (folder / "derived_inputs_ref.cu").string();
    json["DerivedInputs"]["KernelFile"] = "derive.cu";
    std::ofstream(dir_ / "derive.cu") << source;
    std::ofstream(dir_ / "space.json") << json.dump(2);
    return (dir_ / "space.json").string();
  }

  std::filesystem::path dir_;
};

TEST_F(DerivedInputsGpu, AVariantSeesTheInputsTheKernelDerivedInEveryRound) {
  for (const char* params : {"BLOCK=64,MODE=0", "BLOCK=256,MODE=0"})
    for (const char* problem : {"N=100000", "N=7"}) {
      const auto json = eval_json(kSpace, params, std::string(" --problem ") + problem);
      EXPECT_EQ(json.value("status", ""), "ok") << params << " " << problem << ": " << json.dump(2);
      // Two random rounds, x in [-100, 100], then N + 1: y follows x in each.
      EXPECT_EQ(json.at("validation").at("rounds"), 2 + 1 + 1) << json.dump(2);
      EXPECT_LE(json.at("error").at("max_abs").get<double>(), 1e-4) << json.dump(2);
      EXPECT_GT(json.at("time_us").get<double>(), 0.0);
    }
}

TEST_F(DerivedInputsGpu, ExactSizeBuffersAsUnderTheSanitizerDeriveToo) {
  const auto json = eval_json(kSpace, "BLOCK=64,MODE=0", " --exact-buffers");
  EXPECT_EQ(json.value("status", ""), "ok") << json.dump(2);
  EXPECT_EQ(json.at("validation").at("rounds"), 2 + 1) << "no extra problem with exact-size buffers";
}

TEST_F(DerivedInputsGpu, AVariantThatWritesIntoADerivedInputIsCaughtByItsChecksum) {
  const auto json = eval_json(kSpace, "BLOCK=64,MODE=1");
  EXPECT_EQ(json.value("status", ""), "wrong_result") << json.dump(2);
  EXPECT_NE(json.value("message", "").find("wrote into the read-only input 'y' (its checksum changed)"),
            std::string::npos)
      << json.dump(2);
}

TEST_F(DerivedInputsGpu, WithoutTheDerivedKernelYIsNaNAndNoVariantPasses) {
  // A DerivedInputs kernel that writes nothing leaves y as poisoned: the variant's out is NaN (the
  // reference's 1 is not), so only a derived y can pass.
  const std::string space =
      space_with_derive("extern \"C\" __global__ void derive_y(const float* x, float* y, int n) {}\n");
  const auto json = eval_json(space, "BLOCK=64,MODE=0");
  EXPECT_EQ(json.value("status", ""), "nan") << json.dump(2);
}

TEST_F(DerivedInputsGpu, ATuneRunsTheDerivedKernelInItsWorkers) {
  const std::string db = (dir_ / "results.db").string();
  const auto tune = test::run_evotune("tune " + kSpace + " --db " + db +
                                      " --strategy exhaustive --reps 5 --rerank 0 --timeout-ms 5000");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const auto best = test::run_evotune("best " + kSpace + " --db " + db + " --json --failed --top 100");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  std::map<std::string, int> statuses;
  for (const auto& result : nlohmann::json::parse(best.out)) {
    const int mode = result.at("params").at("MODE").get<int>();
    EXPECT_EQ(result.at("status"), mode == 0 ? "ok" : "wrong_result") << result.dump();
    ++statuses[result.at("status").get<std::string>()];
  }
  EXPECT_EQ(statuses["ok"], 2);
  EXPECT_EQ(statuses["wrong_result"], 2);
}

TEST_F(DerivedInputsGpu, ADerivedKernelThatWritesAnotherInputIsAnErrorOfTheSpace) {
  const std::string space = space_with_derive(
      "extern \"C\" __global__ void derive_y(float* x, float* y, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) { y[i] = 2.0f * x[i] + 1.0f; x[i] = 0.0f; }\n"
      "}\n");
  const auto result = test::run_evotune("eval tests/data/spaces/derived_inputs.cu --space " + space +
                                        " --json --params BLOCK=64,MODE=0");
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_NE(
      result.err.find("the space's DerivedInputs kernel 'derive_y' wrote into the input 'x', which is not "
                      "of FillType Derived"),
      std::string::npos)
      << result.err;
}

TEST_F(DerivedInputsGpu, ADerivedKernelThatWritesPastItsBufferIsAnErrorOfTheSpace) {
  const std::string space = space_with_derive(
      "extern \"C\" __global__ void derive_y(const float* x, float* y, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i <= n) y[i] = 2.0f * x[i < n ? i : 0] + 1.0f;\n"
      "}\n");
  const auto result = test::run_evotune("eval tests/data/spaces/derived_inputs.cu --space " + space +
                                        " --json --params BLOCK=64,MODE=0");
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_NE(result.err.find("the space's DerivedInputs kernel 'derive_y' wrote outside buffer 'y'"),
            std::string::npos)
      << result.err;
}

TEST_F(DerivedInputsGpu, ADerivedKernelThatFaultsIsAnErrorOfTheSpace) {
  const std::string space = space_with_derive(
      "extern \"C\" __global__ void derive_y(const float* x, float* y, int n) { __trap(); }\n");
  const auto result = test::run_evotune("eval tests/data/spaces/derived_inputs.cu --space " + space +
                                        " --json --params BLOCK=64,MODE=0");
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_NE(result.err.find("the space's DerivedInputs kernel does not run (an error of the space, not of a "
                            "variant): DerivedInputs kernel 'derive_y': "),
            std::string::npos)
      << result.err;
}

}  // namespace derived_inputs_test
}  // namespace evotune
