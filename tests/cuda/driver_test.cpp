// The lazily loaded driver on a machine without one, and the error texts of check().
#include "cuda/driver.hpp"

#include <gtest/gtest.h>

namespace evotune::cuda {
namespace driver_test {

TEST(Driver, CheckPassesSuccess) { EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuInit")); }

TEST(Driver, CheckThrowsCudaErrorNamingTheCall) {
  try {
    check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuLaunchKernel");
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.result(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(std::string(e.what()), "cuLaunchKernel: " + error_text(CUDA_ERROR_ILLEGAL_ADDRESS));
  }
}

TEST(Driver, StickyErrors) {
  EXPECT_TRUE(is_sticky(CUDA_ERROR_ILLEGAL_ADDRESS));
  EXPECT_TRUE(is_sticky(CUDA_ERROR_MISALIGNED_ADDRESS));
  EXPECT_TRUE(is_sticky(CUDA_ERROR_LAUNCH_FAILED));
  EXPECT_FALSE(is_sticky(CUDA_ERROR_INVALID_VALUE));
  EXPECT_FALSE(is_sticky(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
  EXPECT_FALSE(is_sticky(CUDA_SUCCESS));
}

TEST(Driver, WithoutADriverNothingThrowsButDriver) {
  if (no_device_reason().find("libcuda.so.1") == std::string::npos)
    GTEST_SKIP() << "a CUDA driver is installed here; this test covers machines without one";
  EXPECT_EQ(device_count(), 0);
  EXPECT_EQ(no_device_reason(), "no CUDA driver (libcuda.so.1 not found)");
  EXPECT_EQ(error_text(CUDA_ERROR_ILLEGAL_ADDRESS), "CUresult 700");
  try {
    driver();
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA driver not available (libcuda.so.1 not found): this command needs an NVIDIA GPU");
  }
}

}  // namespace driver_test
}  // namespace evotune::cuda
