// The CUDA driver API, loaded at run time (dlopen libcuda.so.1), so the binary starts on machines with no
// GPU.
#pragma once

#include <cuda.h>

#include <string>

#include "core/error.hpp"

namespace evotune::cuda {

// CUDA graphs, for timing short variants without launch overhead (cuda/graph.hpp).
#define EVOTUNE_GRAPH_DRIVER_FUNCTIONS(X) \
  X(cuStreamBeginCapture)                 \
  X(cuStreamEndCapture)                   \
  X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy)

// Every driver function evotune calls. cuda.h maps some names to versioned symbols (cuMemAlloc ->
// cuMemAlloc_v2); the member takes the versioned name too, so `api.cuMemAlloc(...)` reads as usual.
// One X a line, left alone: clang-format 14 reflows such lists differently on each pass.
// clang-format off
#define EVOTUNE_DRIVER_FUNCTIONS(X) \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuDeviceGet) \
  X(cuDeviceGetCount) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDeviceTotalMem) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuDevicePrimaryCtxReset) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuModuleLoadData) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuModuleGetGlobal) \
  X(cuModuleGetFunctionCount) \
  X(cuModuleEnumerateFunctions) \
  X(cuFuncGetName) \
  X(cuFuncGetAttribute) \
  X(cuFuncSetAttribute) \
  X(cuFuncGetParamInfo) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemcpyDtoDAsync) \
  X(cuMemsetD8Async) \
  X(cuMemsetD32Async) \
  X(cuStreamCreate) \
  X(cuStreamDestroy) \
  X(cuStreamSynchronize) \
  X(cuEventCreate) \
  X(cuEventDestroy) \
  X(cuEventRecord) \
  X(cuEventQuery) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuLaunchKernel) \
  X(cuDeviceGetPCIBusId) \
  X(cuTensorMapEncodeTiled) \
  X(cuLaunchKernelEx) \
  X(cuOccupancyMaxActiveClusters)
// clang-format on

struct DriverApi {
#define EVOTUNE_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  EVOTUNE_DRIVER_FUNCTIONS(EVOTUNE_DECLARE_DRIVER_FUNCTION)
  EVOTUNE_GRAPH_DRIVER_FUNCTIONS(EVOTUNE_DECLARE_DRIVER_FUNCTION)
#undef EVOTUNE_DECLARE_DRIVER_FUNCTION
};

// A failed driver call. what(): "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access ...)".
class CudaError : public Error {
 public:
  CudaError(CUresult result, const std::string& message) : Error(message), result_(result) {}
  CUresult result() const { return result_; }

 private:
  CUresult result_;
};

// The loaded driver (cuInit done). Throws Error("CUDA driver not available (libcuda.so.1 not found): ...")
// when there is none. Thread-safe; loads once.
const DriverApi& driver();

// Number of CUDA devices; 0 (never throws) when there is no driver or no device.
int device_count();

// Why device_count() is 0, in one line ("no CUDA driver (libcuda.so.1 not found)", "no CUDA device");
// empty when there is a device.
std::string no_device_reason();

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"; "CUresult 700" without a driver.
std::string error_text(CUresult result);

// Throws CudaError naming the call when result is not CUDA_SUCCESS.
void check(CUresult result, const char* call);

// Errors that leave the context unusable: every later call fails until the context is reset.
bool is_sticky(CUresult result);

// For destructors: logs a failed release (debug level when the context is already known to be lost).
void log_release_failure(CUresult result, const char* call) noexcept;

}  // namespace evotune::cuda
