// Device queries through the driver, for the layers above eval.
#include "eval/device_query.hpp"

#include "cuda/driver.hpp"
#include "cuda/resources.hpp"

namespace evotune {

int gpu_count() { return cuda::device_count(); }

std::string no_gpu_reason() { return cuda::no_device_reason(); }

DeviceInfo query_gpu(int ordinal) { return cuda::query_device(ordinal); }

}  // namespace evotune
