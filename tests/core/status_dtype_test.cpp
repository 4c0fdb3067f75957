// Status and dtype names round-trip; sizes are right.
#include <gtest/gtest.h>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/known_devices.hpp"
#include "core/status.hpp"

namespace evotune {
namespace status_dtype_test {

TEST(Status, EveryStatusRoundTripsThroughItsName) {
  for (Status s :
       {Status::ok, Status::compile_error, Status::resource_error, Status::launch_error, Status::timeout,
        Status::wrong_result, Status::nan, Status::out_of_bounds, Status::nondeterministic}) {
    const auto back = status_from_string(to_string(s));
    ASSERT_TRUE(back.has_value()) << to_string(s);
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(status_from_string("fast").has_value());
}

TEST(DType, NamesAndSizes) {
  EXPECT_EQ(dtype_from_string("half"), DType::f16);
  EXPECT_EQ(size_of(DType::f16), 2u);
  EXPECT_EQ(size_of(DType::bf16), 2u);
  EXPECT_EQ(size_of(DType::i64), 8u);
  EXPECT_EQ(cuda_type_name(DType::i32), "int");
  EXPECT_FALSE(is_floating(DType::i32));
  EXPECT_FALSE(dtype_from_string("quad").has_value());
}

TEST(Hash, IsStableAndSensitive) {
  EXPECT_EQ(hex_hash("abc"), hex_hash("abc"));
  EXPECT_NE(hex_hash("abc"), hex_hash("abd"));
  EXPECT_EQ(hex_hash("").size(), 16u);
  EXPECT_EQ(hex_hash(""), "cbf29ce484222325");  // FNV-1a offset basis: the definition, not our choice
}

TEST(KnownDevices, OfflineLimitsForKnownArchs) {
  const DeviceInfo h100 = offline_device("sm_90a");
  EXPECT_EQ(h100.arch(), "sm_90");
  EXPECT_EQ(h100.max_smem_per_block, 227 * 1024);
  EXPECT_EQ(offline_device("sm_80").max_smem_per_block, 163 * 1024);
  EXPECT_THROW(offline_device("sm_12"), Error);
  EXPECT_THROW(offline_device("compute_90"), Error);
}

}  // namespace status_dtype_test
}  // namespace evotune
