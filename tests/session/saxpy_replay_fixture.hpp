// Test fixture: the saxpy space with a recorded sweep of it in a temporary folder, as `tune --replay` sees
// them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "replay/sweep_fixture.hpp"
#include "session/tune_session.hpp"

namespace evotune::session_test {

class SaxpyReplay : public ::testing::Test {
 protected:
  SaxpyReplay()
      : dir(std::filesystem::temp_directory_path() / ("evotune_session_" + std::to_string(::getpid()))),
        space(SearchSpace::load("tests/data/spaces/saxpy.json")),
        sizes(space.resolve_problem("")) {
    std::filesystem::create_directories(dir);
    options.replay_file = dir / "sweep.json";
    save_sweep(sweep(), *options.replay_file);
  }
  ~SaxpyReplay() override { std::filesystem::remove_all(dir); }

  // Every valid config, ok, the i-th in enumeration order taking 10 + i us.
  RecordedSweep sweep() const {
    return replay_test::synthetic_sweep(space, [](std::size_t i) { return 10.0 + static_cast<double>(i); });
  }

  std::filesystem::path dir;
  SearchSpace space;
  Sizes sizes;
  TuneOptions options;
};

}  // namespace evotune::session_test
