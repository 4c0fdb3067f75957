// Allocation, filling and read-back of the evaluator's device buffers.
#include "eval/device_state.hpp"

#include "eval/host_convert.hpp"

namespace evotune {
namespace {

std::size_t bytes_of(const BufferSpec& spec) {
  return static_cast<std::size_t>(spec.count) * size_of(spec.dtype);
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
  for (const auto& spec : buffers) {
    Buffer buffer{spec, {}, {}, {}};
    if (spec.is_output) {
      buffer.reference = cuda::DeviceMemory(bytes_of(spec));
      buffer.variant = cuda::DeviceMemory(bytes_of(spec));
    } else {
      buffer.shared = cuda::DeviceMemory(bytes_of(spec));
    }
    buffers_.push_back(std::move(buffer));
  }
}

std::optional<std::uint64_t> DeviceState::address(const std::string& name, Role role) const {
  for (const auto& buffer : buffers_) {
    if (buffer.spec.name != name) continue;
    if (!buffer.spec.is_output) return buffer.shared.get();
    return role == Role::reference ? buffer.reference.get() : buffer.variant.get();
  }
  return std::nullopt;
}

void DeviceState::prepare(std::uint64_t seed, Role role) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    const BufferSpec& spec = buffer.spec;
    const std::uint64_t data_seed = buffer_seed(seed, i);
    if (!spec.is_output) {
      builtins.fill(stream.get(), buffer.shared.get(), spec.dtype, spec.count, spec.fill, data_seed);
      continue;
    }
    const cuda::DeviceMemory& copy = role == Role::reference ? buffer.reference : buffer.variant;
    if (spec.is_input)
      builtins.fill(stream.get(), copy.get(), spec.dtype, spec.count, spec.fill, data_seed);
    else
      builtins.poison(stream.get(), copy.get(), spec.dtype, spec.count);
  }
}

std::vector<std::vector<double>> DeviceState::download_outputs(Role role) const {
  std::vector<std::vector<double>> outputs;
  std::string host;
  for (const auto& buffer : buffers_) {
    if (!buffer.spec.is_output) continue;
    const cuda::DeviceMemory& copy = role == Role::reference ? buffer.reference : buffer.variant;
    host.resize(bytes_of(buffer.spec));
    copy.download(host.data(), host.size());
    outputs.push_back(to_doubles(host.data(), buffer.spec.dtype, buffer.spec.count));
  }
  return outputs;
}

void DeviceState::abandon() noexcept {
  for (auto& buffer : buffers_) {
    buffer.shared.abandon();
    buffer.reference.abandon();
    buffer.variant.abandon();
  }
  for (auto& event : events) event.abandon();
  l2_scratch.abandon();
  variant_module.abandon();
  reference_module.abandon();
  builtins.abandon();
  stream.abandon();
  context.abandon();
}

}  // namespace evotune
