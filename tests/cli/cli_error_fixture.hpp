// For CLI error tests: a temp folder, a small results database, and the checks every refusal must pass.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "cuda/driver.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune::test {

inline const std::string kSaxpy = "tests/data/spaces/saxpy.json";

class CliErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("evotune_cli_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A database as `tune` leaves it: one finished run of the saxpy space (default problem) with one ok
  // measurement, so `best`, `show 1` and `export` succeed on it. Made once per test; returns its path.
  std::filesystem::path make_results_db(const std::string& name = "results.db") const {
    const auto file = dir_ / name;
    if (std::filesystem::exists(file)) return file;
    const SearchSpace space = SearchSpace::load(kSaxpy);
    Store store(file);
    const auto space_id =
        store.upsert_space(space.name(), space.path().string(), space.hash(), space.json_text());
    const auto problem_id = store.upsert_problem(space.resolve_problem(""));
    const auto device_id = store.upsert_device(store_test::test_device(), "12.8");
    const auto run_id =
        store.begin_run({space_id, problem_id, device_id, "exhaustive", 1, 1, "evotune tune"});
    const auto config_id = store.upsert_config(space_id, {{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}});
    store.record_measurement(
        {run_id, config_id, problem_id, device_id, std::nullopt, store_test::ok_outcome(2.5), 0.003, 20});
    store.finish_run(run_id, "finished", 1, 0);
    return file;
  }

  // Every file under the temp folder with its size and content hash: a refusal must change none, create none.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      if (!entry.is_regular_file()) continue;
      const std::string bytes = store_test::read_bytes(entry.path());
      files[entry.path().string()] = std::to_string(bytes.size()) + " bytes, hash " + hex_hash(bytes);
    }
    return files;
  }

  // Exit code 1 and exactly one line on stderr, starting "evotune: error: " and containing `expected`.
  static void expect_one_line_error(const CommandResult& result, const std::string& expected) {
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_EQ(result.err.rfind("evotune: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
  }

  // Runs `evotune arguments`, expects a one-line error naming `cause`, and that no file under the temp folder
  // changed.
  void expect_refused(const std::string& arguments, const std::string& cause) const {
    SCOPED_TRACE("evotune " + arguments);
    const auto before = snapshot();
    expect_one_line_error(run_evotune(arguments), cause);
    EXPECT_EQ(snapshot(), before) << "the command changed or created files";
  }

  // As expect_refused, for `tune` refused over its database. tune_session checks for a GPU before it opens
  // the database, so on a machine without one the line may name the missing GPU instead of `cause`.
  void expect_tune_refused(const std::string& arguments, const std::string& cause) const {
    SCOPED_TRACE("evotune tune " + arguments);
    const auto before = snapshot();
    const CommandResult result = run_evotune("tune " + arguments);
    const bool names_missing_gpu = result.err.find("needs a GPU") != std::string::npos;
    const bool no_gpu = cuda::device_count() == 0;
    expect_one_line_error(result, no_gpu && names_missing_gpu ? "needs a GPU" : cause);
    EXPECT_EQ(snapshot(), before) << "tune changed or created files";
  }

  std::filesystem::path dir_;
};

}  // namespace evotune::test
