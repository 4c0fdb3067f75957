// Test helpers for the core types and their JSON form: a real device, field-by-field comparisons, and the
// check that a reader's error is the expected one line.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/device_info.hpp"
#include "core/error.hpp"
#include "core/outcome.hpp"

namespace evotune::core_test {

// An H100 as the driver describes it.
inline DeviceInfo h100() {
  return {"NVIDIA H100 80GB HBM3",
          9,
          0,
          13000,
          132,
          52428800,
          std::int64_t{85} << 30,
          1024,
          232448,
          233472,
          65536,
          65536,
          32};
}

inline void expect_same_device(const DeviceInfo& a, const DeviceInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.arch(), b.arch());
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.sm_count, b.sm_count);
  EXPECT_EQ(a.l2_bytes, b.l2_bytes);
  EXPECT_EQ(a.global_mem_bytes, b.global_mem_bytes);
  EXPECT_EQ(a.max_threads_per_block, b.max_threads_per_block);
  EXPECT_EQ(a.max_smem_per_block, b.max_smem_per_block);
  EXPECT_EQ(a.smem_per_sm, b.smem_per_sm);
  EXPECT_EQ(a.regs_per_block, b.regs_per_block);
  EXPECT_EQ(a.regs_per_sm, b.regs_per_sm);
  EXPECT_EQ(a.warp_size, b.warp_size);
}

inline void expect_same_compile(const CompileInfo& a, const CompileInfo& b) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.static_smem_bytes, b.static_smem_bytes);
  EXPECT_EQ(a.spill_store_bytes, b.spill_store_bytes);
  EXPECT_EQ(a.spill_load_bytes, b.spill_load_bytes);
  EXPECT_EQ(a.stack_frame_bytes, b.stack_frame_bytes);
  EXPECT_EQ(a.compile_ms, b.compile_ms);
  EXPECT_EQ(a.from_cache, b.from_cache);
  EXPECT_EQ(a.log, b.log);
}

// Calls `read` and expects Error with exactly `message`.
inline void expect_error(const std::function<void()>& read, const std::string& message) {
  try {
    read();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace evotune::core_test
