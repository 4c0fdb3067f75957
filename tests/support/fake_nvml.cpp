// A stand-in for libnvidia-ml.so.1: the NVML functions evotune calls, with fixed answers for one GPU at PCI
// bus id 00000000:18:00.0, and fake_nvml_set_clock_reasons() to change what it reports as clock reasons.
#include <cstring>

namespace {

int g_device = 0;
unsigned long long g_reasons = 0x1;  // idle

constexpr int kSuccess = 0, kNotFound = 6, kNotSupported = 3;

}  // namespace

extern "C" {

int nvmlInit_v2() { return kSuccess; }
int nvmlShutdown() { return kSuccess; }

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (std::strcmp(bus_id, "00000000:18:00.0") != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetUUID(void*, char* uuid, unsigned length) {
  std::strncpy(uuid, "GPU-00000000-1111-2222-3333-444444444444", length);
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void*, int type, unsigned* mhz) {
  *mhz = type == 1 ? 1755 : 2619;
  return kSuccess;
}

int nvmlDeviceGetMaxClockInfo(void*, int type, unsigned* mhz) {
  *mhz = type == 1 ? 1980 : 2619;
  return kSuccess;
}

int nvmlDeviceGetApplicationsClock(void*, int, unsigned*) { return kNotSupported; }

int nvmlDeviceGetPowerUsage(void*, unsigned* mw) {
  *mw = 312400;
  return kSuccess;
}

int nvmlDeviceGetPowerManagementLimit(void*, unsigned* mw) {
  *mw = 700000;
  return kSuccess;
}

int nvmlDeviceGetTemperature(void*, int, unsigned* celsius) {
  *celsius = 61;
  return kSuccess;
}

int nvmlDeviceGetEccMode(void*, int* current, int* pending) {
  *current = *pending = 1;
  return kSuccess;
}

int nvmlDeviceGetMigMode(void*, unsigned* current, unsigned* pending) {
  *current = *pending = 0;
  return kSuccess;
}

int nvmlDeviceGetCurrentClocksEventReasons(void*, unsigned long long* reasons) {
  *reasons = g_reasons;
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void*, unsigned long long* millijoules) {
  *millijoules = 123456789ULL;
  return kSuccess;
}

void fake_nvml_set_clock_reasons(unsigned long long reasons) { g_reasons = reasons; }

}  // extern "C"
