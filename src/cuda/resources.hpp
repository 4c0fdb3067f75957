// RAII owners of driver objects: primary context, module, device memory, stream, event; device queries.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/device_info.hpp"
#include "cuda/driver.hpp"

namespace evotune::cuda {

// Owns one driver handle. Release failures are logged, never thrown. abandon() forgets the handle without
// a driver call: for handles whose context was (or is about to be) reset, where releasing is meaningless.
template <typename Handle, typename Traits>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle handle) : handle_(handle) {}
  ~Owned() { reset(); }
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  void reset() noexcept {
    if (handle_ != Handle{}) log_release_failure(Traits::release(handle_), Traits::name);
    handle_ = Handle{};
  }
  void abandon() noexcept { handle_ = Handle{}; }

 private:
  Handle handle_{};
};

struct ModuleTraits {
  static constexpr const char* name = "cuModuleUnload";
  static CUresult release(CUmodule module) { return driver().cuModuleUnload(module); }
};
struct MemoryTraits {
  static constexpr const char* name = "cuMemFree";
  static CUresult release(CUdeviceptr pointer) { return driver().cuMemFree(pointer); }
};
struct StreamTraits {
  static constexpr const char* name = "cuStreamDestroy";
  static CUresult release(CUstream stream) { return driver().cuStreamDestroy(stream); }
};
struct EventTraits {
  static constexpr const char* name = "cuEventDestroy";
  static CUresult release(CUevent event) { return driver().cuEventDestroy(event); }
};

// The device's primary context, retained for the life of the object. Not movable: the evaluator holds it
// in a unique_ptr when it has to replace it.
class PrimaryContext {
 public:
  explicit PrimaryContext(int ordinal);  // cuDeviceGet + cuDevicePrimaryCtxRetain; throws CudaError
  ~PrimaryContext();                     // cuDevicePrimaryCtxRelease
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  void make_current() const;  // cuCtxSetCurrent on the calling thread
  CUdevice device() const { return device_; }
  CUcontext get() const { return context_; }
  // Forgets the retain without releasing it: for a context about to be reset (reset_primary_context).
  void abandon() noexcept { context_ = nullptr; }

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

// What cudaDeviceReset does: makes `context` (the device's primary context) current on the calling
// thread, then cuDevicePrimaryCtxReset destroys every allocation, module, stream and event in it and
// clears a sticky error; the next retain starts afresh. A kernel still running is stopped, or the call
// blocks until it ends. Every handle from the context must be abandoned first.
CUresult reset_primary_context(CUdevice device, CUcontext context) noexcept;

// A kernel's resource usage as the driver sees it after loading.
struct FunctionAttributes {
  int num_regs = 0;
  int static_smem_bytes = 0;
  int max_threads_per_block = 0;  // limited by register use
  int local_bytes = 0;            // per thread
};

// A module loaded from a cubin image in the current context.
class Module {
 public:
  Module() = default;
  static Module load(const std::string& cubin);  // cuModuleLoadData; throws CudaError
  // cuModuleGetFunction; throws CudaError (CUDA_ERROR_NOT_FOUND when the module has no such kernel).
  CUfunction function(const std::string& kernel_name) const;
  CUmodule get() const { return module_.get(); }
  void abandon() noexcept { module_.abandon(); }

 private:
  Owned<CUmodule, ModuleTraits> module_;
};

FunctionAttributes function_attributes(CUfunction function);  // throws CudaError

// Device memory in the current context.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);  // cuMemAlloc (at least 1 byte); throws CudaError
  CUdeviceptr get() const { return memory_.get(); }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes) const;  // cuMemcpyHtoD; throws CudaError
  void download(void* host, std::size_t bytes) const;      // cuMemcpyDtoH; throws CudaError
  void abandon() noexcept { memory_.abandon(); }

 private:
  Owned<CUdeviceptr, MemoryTraits> memory_;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() = default;      // no stream yet
  static Stream create();  // cuStreamCreate(CU_STREAM_NON_BLOCKING) in the current context; throws CudaError
  CUstream get() const { return stream_.get(); }
  void synchronize() const;
  void abandon() noexcept { stream_.abandon(); }

 private:
  Owned<CUstream, StreamTraits> stream_;
};

class Event {
 public:
  Event() = default;      // no event yet
  static Event create();  // cuEventCreate(CU_EVENT_DEFAULT): timing enabled; throws CudaError
  CUevent get() const { return event_.get(); }
  void record(CUstream stream) const;
  // cuEventQuery: true when done, false while pending; throws CudaError for a failure (a kernel fault).
  bool done() const;
  void abandon() noexcept { event_.abandon(); }

 private:
  Owned<CUevent, EventTraits> event_;
};

// Milliseconds between two completed events (cuEventElapsedTime); throws CudaError.
float elapsed_ms(const Event& start, const Event& stop);

// Every DeviceInfo field for the device; throws Error when there is no driver or no such device.
DeviceInfo query_device(int ordinal);

// The device's PCI bus id ("00000000:18:00.0"), which NVML knows it by; throws like query_device.
std::string device_pci_bus_id(int ordinal);

}  // namespace evotune::cuda
