// NVRTC's --time report: recorded rows, repeated phases, malformed and missing files.
#include "compile/nvrtc_time.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace evotune {
namespace nvrtc_time_test {

// Recorded from NVRTC 13.0 (--time=FILE, a new file) compiling the attention template.
const char* kRecorded =
    "File name, phase name, metric, unit\n"
    "flash_attn_fwd.cu, CUDA C++ Frontend, 47, ms\n"
    "flash_attn_fwd.cu, NVVM Optimizer, 110, ms\n"
    "flash_attn_fwd.cu, PTX Translation, 108, ms\n";

void expect_phases(const std::optional<CompilePhases>& phases, double frontend, double nvvm, double ptxas) {
  ASSERT_TRUE(phases);
  EXPECT_EQ(phases->frontend_ms, frontend);
  EXPECT_EQ(phases->nvvm_ms, nvvm);
  EXPECT_EQ(phases->ptxas_ms, ptxas);
}

TEST(NvrtcTime, ReadsTheThreePhases) { expect_phases(parse_nvrtc_time(kRecorded), 47, 110, 108); }

TEST(NvrtcTime, RepeatedPhasesAddUpAndOtherUnitsAreConverted) {
  const auto phases = parse_nvrtc_time(std::string(kRecorded) +
                                       "flash_attn_fwd.cu, CUDA C++ Frontend, 3, ms\r\n"
                                       "x.cu, PTX Translation, 0.5, s\n"
                                       "x.cu, NVVM Optimizer, 2500, us\n");
  expect_phases(phases, 50, 112.5, 608);
}

TEST(NvrtcTime, MalformedRowsAreSkipped) {
  const auto phases = parse_nvrtc_time(
      "File name, phase name, metric, unit\n"
      "x.cu, CUDA C++ Frontend, fast, ms\n"    // not a number
      "x.cu, CUDA C++ Frontend, 12ms, ms\n"    // trailing text
      "x.cu, CUDA C++ Frontend, -4, ms\n"      // negative
      "x.cu, CUDA C++ Frontend, 9, minutes\n"  // unknown unit
      "x.cu, CUDA C++ Frontend, 9\n"           // short row
      "x.cu, Link Time Optimizer, 30, ms\n"    // a phase not kept
      "x.cu, NVVM Optimizer, 20, ms, extra\n"  // long row
      "x.cu, PTX Translation, 7, ms\n");
  expect_phases(phases, 0, 0, 7);
}

TEST(NvrtcTime, NoKnownPhaseIsNoReport) {
  EXPECT_FALSE(parse_nvrtc_time(""));
  EXPECT_FALSE(parse_nvrtc_time("File name, phase name, metric, unit\n"));
  EXPECT_FALSE(
      parse_nvrtc_time("\x7f"
                       "ELF\x02\x01 binary junk\n,,,\n"));
}

TEST(NvrtcTime, MissingFileIsNoReport) {
  EXPECT_FALSE(read_nvrtc_time("/nonexistent/evotune/nvrtc-time.csv"));
  EXPECT_FALSE(read_nvrtc_time("/"));  // a folder
}

TEST(NvrtcTime, ReadsAFile) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("evotune-nvrtc-time-test-" + std::to_string(getpid()) + ".csv");
  std::ofstream(file) << kRecorded;
  const auto phases = read_nvrtc_time(file);
  std::filesystem::remove(file);
  expect_phases(phases, 47, 110, 108);
}

}  // namespace nvrtc_time_test
}  // namespace evotune
