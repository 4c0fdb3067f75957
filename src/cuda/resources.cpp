// Driver calls behind the RAII owners and the device query.
#include "cuda/resources.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "core/kernel_symbol.hpp"

namespace evotune::cuda {

PrimaryContext::PrimaryContext(int ordinal) {
  const DriverApi& api = driver();
  check(api.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(api.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
}

PrimaryContext::~PrimaryContext() {
  if (context_ != nullptr)
    log_release_failure(driver().cuDevicePrimaryCtxRelease(device_), "cuDevicePrimaryCtxRelease");
}

void PrimaryContext::make_current() const { check(driver().cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

CUresult reset_primary_context(CUdevice device, CUcontext context) noexcept {
  const DriverApi& api = driver();
  log_release_failure(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return api.cuDevicePrimaryCtxReset(device);
}

Module Module::load(const std::string& cubin) {
  CUmodule module = nullptr;
  check(driver().cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
  Module loaded;
  loaded.module_ = Owned<CUmodule, ModuleTraits>(module);
  return loaded;
}

CUfunction Module::function(const std::string& kernel_name) const {
  const DriverApi& api = driver();
  CUfunction function = nullptr;
  const CUresult found = api.cuModuleGetFunction(&function, module_.get(), kernel_name.c_str());
  if (found != CUDA_ERROR_NOT_FOUND) {
    check(found, "cuModuleGetFunction");
    return function;
  }
  // Not extern "C": the kernel's C++-mangled symbol, if exactly one function mangles that name.
  unsigned count = 0;
  check(api.cuModuleGetFunctionCount(&count, module_.get()), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(count);
  check(api.cuModuleEnumerateFunctions(functions.data(), count, module_.get()), "cuModuleEnumerateFunctions");
  std::vector<std::string> names;
  for (CUfunction each : functions) {
    const char* name = nullptr;
    check(api.cuFuncGetName(&name, each), "cuFuncGetName");
    names.emplace_back(name != nullptr ? name : "");
  }
  const auto symbol = kernel_symbol(kernel_name, names);
  if (!symbol) check(found, "cuModuleGetFunction");  // throws, as before: no such kernel (or overloads)
  // The enumerated handles are not loaded under lazy module loading (cuFuncGetAttribute answers
  // CUDA_ERROR_FUNCTION_NOT_LOADED): the handle comes from looking the mangled symbol up by name, which loads
  // it.
  check(api.cuModuleGetFunction(&function, module_.get(), symbol->c_str()), "cuModuleGetFunction");
  return function;
}

FunctionAttributes function_attributes(CUfunction function) {
  const DriverApi& api = driver();
  FunctionAttributes attributes;
  check(api.cuFuncGetAttribute(&attributes.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, function),
        "cuFuncGetAttribute");
  check(api.cuFuncGetAttribute(&attributes.static_smem_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
        "cuFuncGetAttribute");
  check(api.cuFuncGetAttribute(&attributes.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                               function),
        "cuFuncGetAttribute");
  check(api.cuFuncGetAttribute(&attributes.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function),
        "cuFuncGetAttribute");
  return attributes;
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  CUdeviceptr pointer = 0;
  check(driver().cuMemAlloc(&pointer, bytes == 0 ? 1 : bytes), "cuMemAlloc");
  memory_ = Owned<CUdeviceptr, MemoryTraits>(pointer);
}

void DeviceMemory::upload(const void* host, std::size_t bytes) const {
  check(driver().cuMemcpyHtoD(memory_.get(), host, bytes), "cuMemcpyHtoD");
}

void DeviceMemory::download(void* host, std::size_t bytes) const {
  check(driver().cuMemcpyDtoH(host, memory_.get(), bytes), "cuMemcpyDtoH");
}

Stream Stream::create() {
  CUstream handle = nullptr;
  check(driver().cuStreamCreate(&handle, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  Stream stream;
  stream.stream_ = Owned<CUstream, StreamTraits>(handle);
  return stream;
}

void Stream::synchronize() const {
  check(driver().cuStreamSynchronize(stream_.get()), "cuStreamSynchronize");
}

Event Event::create() {
  CUevent handle = nullptr;
  check(driver().cuEventCreate(&handle, CU_EVENT_DEFAULT), "cuEventCreate");
  Event event;
  event.event_ = Owned<CUevent, EventTraits>(handle);
  return event;
}

void Event::record(CUstream stream) const {
  check(driver().cuEventRecord(event_.get(), stream), "cuEventRecord");
}

bool Event::done() const {
  const CUresult result = driver().cuEventQuery(event_.get());
  if (result == CUDA_ERROR_NOT_READY) return false;
  check(result, "cuEventQuery");
  return true;
}

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  check(driver().cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
  return ms;
}

std::string device_pci_bus_id(int ordinal) {
  CUdevice device = 0;
  check(driver().cuDeviceGet(&device, ordinal), "cuDeviceGet");
  std::array<char, 64> id{};
  check(driver().cuDeviceGetPCIBusId(id.data(), static_cast<int>(id.size()), device), "cuDeviceGetPCIBusId");
  return id.data();
}

DeviceInfo query_device(int ordinal) {
  const DriverApi& api = driver();
  CUdevice device = 0;
  check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(api.cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
    return value;
  };
  DeviceInfo info;
  std::array<char, 256> name{};
  check(api.cuDeviceGetName(name.data(), static_cast<int>(name.size()), device), "cuDeviceGetName");
  info.name = name.data();
  info.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  check(api.cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion");
  info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  std::size_t total = 0;
  check(api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem");
  info.global_mem_bytes = static_cast<std::int64_t>(total);
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_smem_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.smem_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.regs_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  info.regs_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  return info;
}

}  // namespace evotune::cuda
