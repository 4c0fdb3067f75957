// Test helpers for sweeps: recorded results, a small hand-made sweep, a synthetic sweep of a whole space.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>

#include "core/known_devices.hpp"
#include "replay/recorded_sweep.hpp"
#include "space/search_space.hpp"

namespace evotune::replay_test {

inline TimingStats timing(double median_us) {
  return {median_us, median_us * 0.875, median_us * 1.03125, 0.25, median_us * 0.9375, median_us * 1.125, 50};
}

inline RecordedResult ok_result(Config params, double median_us) {
  return {std::move(params), Status::ok, "", timing(median_us)};
}

inline RecordedResult failed_result(Config params, Status status, std::string message) {
  return {std::move(params), status, std::move(message), std::nullopt};
}

inline DeviceInfo h100() {
  DeviceInfo device = offline_device("sm_90");
  device.name = "NVIDIA H100 80GB HBM3";
  device.driver_version = 13000;
  return device;
}

// Results deliberately out of canonical order.
inline RecordedSweep small_sweep() {
  RecordedSweep sweep;
  sweep.space_name = "tiny";
  sweep.space_hash = "0123456789abcdef";
  sweep.problem = {{"N", 4096}, {"ALIGN", 4}};
  sweep.device = h100();
  sweep.nvrtc_version = "12.8";
  sweep.results = {ok_result({{"BLOCK", 256}, {"ITEMS", 4}}, 12.5),
                   failed_result({{"BLOCK", 1024}, {"ITEMS", 8}}, Status::resource_error,
                                 "too many \"threads\"\nsecond line"),
                   ok_result({{"BLOCK", 128}, {"ITEMS", 1}}, 7.25),
                   ok_result({{"BLOCK", 64}, {"ITEMS", 2}}, 0.1 + 0.2)};
  return sweep;
}

inline void expect_same_result(const RecordedResult& a, const RecordedResult& b) {
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  ASSERT_EQ(a.timing.has_value(), b.timing.has_value());
  if (!a.timing) return;
  EXPECT_EQ(a.timing->median_us, b.timing->median_us);  // exact: the file keeps every bit
  EXPECT_EQ(a.timing->min_us, b.timing->min_us);
  EXPECT_EQ(a.timing->mean_us, b.timing->mean_us);
  EXPECT_EQ(a.timing->stddev_us, b.timing->stddev_us);
  EXPECT_EQ(a.timing->p20_us, b.timing->p20_us);
  EXPECT_EQ(a.timing->p80_us, b.timing->p80_us);
  EXPECT_EQ(a.timing->samples, b.timing->samples);
  EXPECT_EQ(a.timing->method, b.timing->method);
}

// Every valid config of the space for its default problem on an offline sm_90, the i-th in enumeration
// order taking time_us(i); configs for which time_us gives a negative value are left out of the sweep.
inline RecordedSweep synthetic_sweep(const SearchSpace& space,
                                     const std::function<double(std::size_t)>& time_us) {
  RecordedSweep sweep;
  sweep.space_name = space.name();
  sweep.space_hash = space.hash();
  sweep.problem = space.resolve_problem("");
  sweep.device = offline_device("sm_90");
  sweep.nvrtc_version = "12.8";
  const auto configs = space.enumerate(sweep.problem, sweep.device);
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (const double time = time_us(i); time >= 0) sweep.results.push_back(ok_result(configs[i], time));
  return sweep;
}

}  // namespace evotune::replay_test
