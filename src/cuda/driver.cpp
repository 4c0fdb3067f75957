// Loads libcuda.so.1 on first use and resolves every driver function through cuGetProcAddress.
#include "cuda/driver.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>

namespace evotune::cuda {
namespace {

constexpr const char* kNoDriver = "no CUDA driver (libcuda.so.1 not found)";

// The outcome of the one attempt to load the driver: the table, or why there is none.
struct Loaded {
  std::optional<DriverApi> api;
  std::string failure;
};

Loaded load_driver() {
  Loaded loaded;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    loaded.failure = kNoDriver;
    return loaded;
  }
  using GetProcAddress = decltype(&::cuGetProcAddress_v2);
  auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    loaded.failure = "CUDA driver too old (libcuda.so.1 has no cuGetProcAddress_v2; need a CUDA 12+ driver)";
    return loaded;
  }
  DriverApi api;
  std::string missing;
  auto resolve = [&](const char* symbol, void** target) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const CUresult result = get_proc(symbol, target, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
    if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || *target == nullptr)
      missing += std::string(missing.empty() ? "" : ", ") + symbol;
  };
#define EVOTUNE_RESOLVE_DRIVER_FUNCTION(name) resolve(#name, reinterpret_cast<void**>(&api.name));
  EVOTUNE_DRIVER_FUNCTIONS(EVOTUNE_RESOLVE_DRIVER_FUNCTION)
  EVOTUNE_GRAPH_DRIVER_FUNCTIONS(EVOTUNE_RESOLVE_DRIVER_FUNCTION)
#undef EVOTUNE_RESOLVE_DRIVER_FUNCTION
  if (!missing.empty()) {
    loaded.failure =
        "CUDA driver too old for CUDA " + std::to_string(CUDA_VERSION / 1000) + " (missing " + missing + ")";
    return loaded;
  }
  const CUresult init = api.cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE) {
    loaded.failure = "no CUDA device";
    return loaded;
  }
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    api.cuGetErrorName(init, &name);
    loaded.failure = std::string("cuInit failed: ") + (name != nullptr ? name : "unknown error");
    return loaded;
  }
  loaded.api = api;
  return loaded;
}

const Loaded& loaded_driver() {
  static const Loaded loaded = load_driver();  // the library stays loaded for the life of the process
  return loaded;
}

}  // namespace

const DriverApi& driver() {
  const Loaded& loaded = loaded_driver();
  if (!loaded.api) {
    if (loaded.failure == kNoDriver)
      throw Error("CUDA driver not available (libcuda.so.1 not found): this command needs an NVIDIA GPU");
    throw Error("CUDA driver not usable (" + loaded.failure + "): this command needs an NVIDIA GPU");
  }
  return *loaded.api;
}

int device_count() {
  const Loaded& loaded = loaded_driver();
  if (!loaded.api) return 0;
  int count = 0;
  if (loaded.api->cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

std::string no_device_reason() {
  const Loaded& loaded = loaded_driver();
  if (!loaded.api) return loaded.failure;
  return device_count() > 0 ? "" : "no CUDA device";
}

std::string error_text(CUresult result) {
  const Loaded& loaded = loaded_driver();
  const char* name = nullptr;
  const char* description = nullptr;
  if (loaded.api) {
    loaded.api->cuGetErrorName(result, &name);
    loaded.api->cuGetErrorString(result, &description);
  }
  if (name == nullptr) return "CUresult " + std::to_string(static_cast<int>(result));
  std::string text = name;
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) throw CudaError(result, std::string(call) + ": " + error_text(result));
}

bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

void log_release_failure(CUresult result, const char* call) noexcept {
  if (result == CUDA_SUCCESS || result == CUDA_ERROR_DEINITIALIZED) return;  // DEINITIALIZED: process exit
  try {
    if (is_sticky(result))
      spdlog::debug("{} after a lost context: {}", call, error_text(result));
    else
      spdlog::warn("{} failed: {}", call, error_text(result));
  } catch (...) {
    // logging must never turn a release into a throw
  }
}

}  // namespace evotune::cuda
