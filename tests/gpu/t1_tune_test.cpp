// On a GPU: tune T1 files of this repository's own kernels with the reference being the template at the
// file's Default values, and see a wrong config caught by it; the converted space tunes the same.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace t1_tune_test {

class T1Tune : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    dir_ = std::filesystem::temp_directory_path() / ("evotune_t1_tune_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "results.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::vector<nlohmann::json> best(const std::string& space) const {
    const auto listed = test::run_evotune("best " + space + " --db " + db_ + " --json --top 1000 --failed");
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    return nlohmann::json::parse(listed.out).get<std::vector<nlohmann::json>>();
  }
  std::filesystem::path dir_;
  std::string db_;
};

// Every valid config of the transpose (18) and the stencil (ReadWrite output, OpenCL global sizes) is
// correct: each must pass against the Default config's output.
TEST_F(T1Tune, EveryConfigMatchesTheDefaultConfig) {
  for (const char* space : {"tests/data/t1/transpose.json", "tests/data/t1/stencil.json"}) {
    const auto run =
        test::run_evotune(std::string("tune ") + space + " --strategy exhaustive --budget 100 --db " + db_ +
                          " --reps 5 --rerank 0");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto results = best(space);
    EXPECT_GE(results.size(), 18u) << space;
    for (const auto& r : results) EXPECT_EQ(r["status"], "ok") << space << ": " << r.dump();
  }
}

// --reference-config names the reference: with the stencil broken for TILE_Y > 1 (each thread skips its last
// point), those configs fail as wrong_result against BLOCK_X=64,TILE_Y=1 and the others pass.
TEST_F(T1Tune, AReferenceConfigThatDisagreesFailsTheOthers) {
  // The stencil's kernel with TILE_Y > 1 skipping its last point per thread: every such config is wrong.
  std::ifstream in("tests/data/t1/stencil.h");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string loop = "for (int t = 0; t < TILE_Y; ++t)";
  text.replace(text.find(loop), loop.size(), "for (int t = 0; t < (TILE_Y > 1 ? TILE_Y - 1 : 1); ++t)");
  std::ofstream(dir_ / "stencil.h") << text;
  std::filesystem::copy_file("tests/data/t1/stencil.json", dir_ / "stencil.json");
  const std::string space = (dir_ / "stencil.json").string();
  const auto run =
      test::run_evotune("tune " + space + " --strategy exhaustive --db " + db_ +
                        " --budget 100 --reps 5 --rerank 0 --reference-config BLOCK_X=64,TILE_Y=1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  int wrong = 0, ok = 0;
  for (const auto& r : best(space)) {
    const bool tiled = r["params"]["TILE_Y"].get<int>() > 1;
    EXPECT_EQ(r["status"], tiled ? "wrong_result" : "ok") << r.dump();
    (tiled ? wrong : ok) += 1;
  }
  EXPECT_GT(wrong, 0);
  EXPECT_GT(ok, 0);
}

}  // namespace t1_tune_test
}  // namespace evotune
