// Allocation, filling and read-back of the evaluator's device buffers.
#include "eval/device_state.hpp"

#include <algorithm>

#include "eval/host_convert.hpp"

namespace evotune {
namespace {

std::size_t bytes_of(const BufferSpec& spec) {
  return static_cast<std::size_t>(spec.count) * size_of(spec.dtype);
}

cuda::DeviceMemory guarded(const BufferSpec& spec, std::size_t margin) {
  return cuda::DeviceMemory(margin + bytes_of(spec) + margin);
}

}  // namespace

DeviceState::DeviceState(int ordinal, const std::vector<BufferSpec>& buffers,
                         const std::string& builtin_cubin, const std::string& reference_cubin,
                         const std::string& reference_kernel, std::size_t scratch_bytes, int event_pairs)
    : context(ordinal) {
  context.make_current();
  stream = cuda::Stream::create();
  builtins = BuiltinKernels(builtin_cubin);
  reference_module = cuda::Module::load(reference_cubin);
  reference = reference_module.function(reference_kernel);
  l2_scratch = cuda::DeviceMemory(scratch_bytes);
  for (int i = 0; i < 2 * event_pairs + 1; ++i) events.push_back(cuda::Event::create());
  checksums = cuda::DeviceMemory(8 * std::max<std::size_t>(1, buffers.size()));
  for (const auto& spec : buffers) {
    const std::size_t margin = guard_margin_bytes(bytes_of(spec));
    Buffer buffer{spec, margin, canary_pattern(margin), {}, {}, {}};
    if (spec.is_output) {
      buffer.reference = guarded(spec, buffer.margin);
      buffer.variant = guarded(spec, buffer.margin);
    } else {
      buffer.shared = guarded(spec, buffer.margin);
    }
    buffers_.push_back(std::move(buffer));
  }
}

const cuda::DeviceMemory& DeviceState::Buffer::copy(Role role) const {
  if (!spec.is_output) return shared;
  return role == Role::reference ? reference : variant;
}

std::optional<std::uint64_t> DeviceState::address(const std::string& name, Role role) const {
  for (const auto& buffer : buffers_)
    if (buffer.spec.name == name) return buffer.payload(role);
  return std::nullopt;
}

void DeviceState::prepare(std::uint64_t seed, Role role) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    const BufferSpec& spec = buffer.spec;
    const std::uint64_t data_seed = buffer_seed(seed, i);
    if (spec.is_input || !spec.is_output)
      builtins.fill(stream.get(), buffer.payload(role), spec.dtype, spec.count, spec.fill, data_seed);
    else
      builtins.poison(stream.get(), buffer.payload(role), spec.dtype, spec.count);
  }
}

std::vector<std::vector<double>> DeviceState::download_outputs(Role role) const {
  std::vector<std::vector<double>> outputs;
  std::string host;
  for (const auto& buffer : buffers_) {
    if (!buffer.spec.is_output) continue;
    host.resize(bytes_of(buffer.spec));
    cuda::check(cuda::driver().cuMemcpyDtoH(host.data(), buffer.payload(role), host.size()), "cuMemcpyDtoH");
    outputs.push_back(to_doubles(host.data(), buffer.spec.dtype, buffer.spec.count));
  }
  return outputs;
}

void DeviceState::arm_guards(Role role) const {
  for (const auto& buffer : buffers_) {
    const CUdeviceptr base = buffer.copy(role).get();
    builtins.canary(stream.get(), base, buffer.margin);
    builtins.canary(stream.get(), base + buffer.margin + bytes_of(buffer.spec), buffer.margin);
  }
}

std::optional<GuardBreach> DeviceState::find_breach(Role role) const {
  std::vector<std::uint8_t> margin;
  for (const auto& buffer : buffers_) {
    margin.resize(buffer.margin);
    const std::size_t payload = bytes_of(buffer.spec);
    const CUdeviceptr base = buffer.copy(role).get();
    for (const GuardSide side : {GuardSide::before, GuardSide::after}) {
      const CUdeviceptr at = side == GuardSide::before ? base : base + buffer.margin + payload;
      cuda::check(cuda::driver().cuMemcpyDtoH(margin.data(), at, margin.size()), "cuMemcpyDtoH");
      if (auto breach = evotune::find_breach(buffer.spec.name, side, payload, margin, buffer.canary))
        return breach;
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::uint64_t>> DeviceState::input_checksums() const {
  cuda::check(cuda::driver().cuMemsetD32Async(checksums.get(), 0, checksums.bytes() / 4, stream.get()),
              "cuMemsetD32Async");
  std::vector<std::size_t> inputs;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    if (!buffer.spec.is_input || buffer.spec.is_output) continue;
    builtins.checksum(stream.get(), buffer.payload(Role::variant), bytes_of(buffer.spec),
                      checksums.get() + 8 * i);
    inputs.push_back(i);
  }
  stream.synchronize();
  std::vector<std::uint64_t> sums(buffers_.size());
  checksums.download(sums.data(), 8 * sums.size());
  std::vector<std::pair<std::string, std::uint64_t>> result;
  for (const std::size_t i : inputs) result.emplace_back(buffers_[i].spec.name, sums[i]);
  return result;
}

void DeviceState::abandon() noexcept {
  for (auto& buffer : buffers_) {
    buffer.shared.abandon();
    buffer.reference.abandon();
    buffer.variant.abandon();
  }
  for (auto& event : events) event.abandon();
  l2_scratch.abandon();
  checksums.abandon();
  variant_module.abandon();
  reference_module.abandon();
  builtins.abandon();
  stream.abandon();
  context.abandon();
}

}  // namespace evotune
