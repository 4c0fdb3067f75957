// Store::measured_devices, which `record` picks its device from: counts per device, most first, full rows.
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace measured_devices_test {

using store_test::failed_outcome;
using store_test::ok_outcome;
using store_test::StoreTest;
using store_test::test_device;

TEST_F(StoreTest, RecordDevicesListsMostMeasuredFirstWithTheirRows) {
  EXPECT_TRUE(store.measured_devices(space_id, problem_id).empty());
  DeviceInfo a100 = test_device("NVIDIA A100-SXM4-80GB");
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.l2_bytes = 40LL << 20;
  a100.max_smem_per_block = 163 * 1024;
  a100.driver_version = 12080;
  const auto a100_id = store.upsert_device(a100, "12.4");
  measure(config(16), ok_outcome(5.0), a100_id);
  measure(config(32), failed_outcome(Status::nan, "unwritten"), a100_id);
  measure(config(64), ok_outcome(4.0), a100_id);
  measure(config(16), ok_outcome(3.0));
  measure(config(32), ok_outcome(2.0));

  const auto devices = store.measured_devices(space_id, problem_id);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device.id, a100_id);
  EXPECT_EQ(devices[0].measurements, 3);
  const DeviceInfo& read = devices[0].device.info;
  EXPECT_EQ(read.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(read.arch(), "sm_80");
  EXPECT_EQ(read.driver_version, 12080);
  EXPECT_EQ(read.sm_count, 108);
  EXPECT_EQ(read.l2_bytes, 40LL << 20);
  EXPECT_EQ(read.max_smem_per_block, 163 * 1024);
  EXPECT_EQ(read.max_threads_per_block, 0);  // not stored
  EXPECT_EQ(devices[0].device.nvrtc_version, "12.4");
  EXPECT_EQ(devices[1].device.id, device_id);
  EXPECT_EQ(devices[1].measurements, 2);
}

TEST_F(StoreTest, RecordDevicesCountOnlyThisSpaceAndProblem) {
  const auto other_problem = store.upsert_problem({{"B", 2}, {"H", 8}, {"S", 512}});
  const auto other_space = store.upsert_space("attention", "a.json", "hash-v2", "{}");
  store.record_measurement({run_id, config(16), other_problem, device_id, std::nullopt, ok_outcome(1.0)});
  store.record_measurement({run_id, store.upsert_config(other_space, {{"BLOCK_M", 16}}), problem_id,
                            device_id, std::nullopt, ok_outcome(1.0)});
  EXPECT_TRUE(store.measured_devices(space_id, problem_id).empty());
  measure(config(16), ok_outcome(1.0));
  const auto devices = store.measured_devices(space_id, problem_id);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].measurements, 1);
}

}  // namespace measured_devices_test
}  // namespace evotune
