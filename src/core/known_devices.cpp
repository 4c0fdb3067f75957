// Published per-architecture limits (CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability").
#include "core/known_devices.hpp"

#include <array>
#include <regex>

#include "core/error.hpp"

namespace evotune {
namespace {
struct ArchLimits {
  int cc;
  int sm_count;
  int max_smem_per_block;
  int smem_per_sm;
  long long l2_bytes;
};
constexpr std::array<ArchLimits, 7> kArchs{{
    {70, 80, 96 * 1024, 96 * 1024, 6LL << 20},
    {75, 40, 64 * 1024, 64 * 1024, 4LL << 20},
    {80, 108, 163 * 1024, 164 * 1024, 40LL << 20},
    {86, 84, 99 * 1024, 100 * 1024, 6LL << 20},
    {89, 128, 99 * 1024, 100 * 1024, 72LL << 20},
    {90, 132, 227 * 1024, 228 * 1024, 50LL << 20},
    {100, 148, 227 * 1024, 228 * 1024, 126LL << 20},
}};
}  // namespace

DeviceInfo offline_device(const std::string& arch) {
  std::smatch match;
  static const std::regex pattern("sm_([0-9]+)([0-9])a?");
  if (!std::regex_match(arch, match, pattern))
    throw Error("--arch '" + arch + "' is not of the form sm_XY (sm_80, sm_90, sm_90a)");
  const int major = std::stoi(match[1].str());
  const int minor = std::stoi(match[2].str());
  for (const auto& limits : kArchs) {
    if (limits.cc != major * 10 + minor) continue;
    DeviceInfo device;
    device.name = "offline " + arch;
    device.cc_major = major;
    device.cc_minor = minor;
    device.sm_count = limits.sm_count;
    device.l2_bytes = limits.l2_bytes;
    device.max_threads_per_block = 1024;
    device.max_smem_per_block = limits.max_smem_per_block;
    device.smem_per_sm = limits.smem_per_sm;
    device.regs_per_block = 64 * 1024;
    device.regs_per_sm = 64 * 1024;
    return device;
  }
  throw Error("--arch '" + arch + "': no limits known for this architecture (known: sm_70 to sm_100)");
}

}  // namespace evotune
