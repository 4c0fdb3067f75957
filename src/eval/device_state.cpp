// Allocation, filling and read-back of the evaluator's device buffers.
#include "eval/device_state.hpp"

#include <algorithm>
#include <bit>

#include "core/error.hpp"
#include "eval/host_convert.hpp"

namespace evotune {
namespace {

std::size_t bytes_of(const BufferSpec& spec) {
  return static_cast<std::size_t>(spec.count) * size_of(spec.dtype);
}

constexpr std::size_t kTallyBytes = 4 * 8;

cuda::DeviceMemory guarded(const BufferSpec& spec, std::size_t margin) {
  return cuda::DeviceMemory(margin + bytes_of(spec) + margin);
}

}  // namespace

DeviceState::DeviceState(int ordinal, const std::vector<BufferSpec>& buffers,
                         const std::vector<std::vector<BufferSpec>>& other_problems,
                         const std::string& builtin_cubin, const std::string& reference_cubin,
                         const std::string& reference_kernel, std::size_t scratch_bytes, int event_pairs,
                         bool guard_margins)
    : context(ordinal), guard_margins_(guard_margins) {
  context.make_current();
  stream = cuda::Stream::create();
  builtins = BuiltinKernels(builtin_cubin);
  reference_module = cuda::Module::load(reference_cubin);
  reference = reference_module.function(reference_kernel);
  l2_scratch = cuda::DeviceMemory(scratch_bytes);
  for (int i = 0; i < 2 * event_pairs + 1; ++i) events.push_back(cuda::Event::create());
  checksums = cuda::DeviceMemory(8 * std::max<std::size_t>(1, buffers.size()));
  tallies = cuda::DeviceMemory(kTallyBytes * std::max<std::size_t>(1, buffers.size()));
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const BufferSpec& spec = buffers[i];
    std::vector<BufferSpec> per_problem{spec};
    BufferSpec largest = spec;
    for (const auto& problem : other_problems) {
      if (problem.size() != buffers.size() || problem[i].name != spec.name || problem[i].dtype != spec.dtype)
        throw Error("internal: an extra problem's buffers differ from the main problem's");
      per_problem.push_back(problem[i]);
      largest.count = std::max(largest.count, problem[i].count);
    }
    const std::size_t margin = guard_margins ? guard_margin_bytes(bytes_of(largest)) : 0;
    Buffer buffer{spec, std::move(per_problem), margin, canary_pattern(margin), {}, {}, {}, {}};
    if (spec.is_output) {
      buffer.reference = guarded(largest, buffer.margin);
      buffer.variant = guarded(largest, buffer.margin);
    } else {
      buffer.shared = guarded(largest, buffer.margin);
    }
    buffers_.push_back(std::move(buffer));
  }
}

const cuda::DeviceMemory& DeviceState::Buffer::copy(Role role) const {
  if (!spec.is_output) return shared;
  return role == Role::reference ? reference : variant;
}

std::optional<std::uint64_t> DeviceState::address(const std::string& name, Role role) const {
  for (const Buffer* buffer : seen_by(role))
    if (buffer->spec.name == name) return buffer->payload(role);
  return std::nullopt;
}

std::vector<const DeviceState::Buffer*> DeviceState::seen_by(Role role) const {
  std::vector<const Buffer*> seen;
  for (const auto& buffer : buffers_) seen.push_back(&buffer);
  if (role == Role::variant)
    for (const auto& buffer : scratch_) seen.push_back(&buffer);
  return seen;
}

void DeviceState::use_scratch(const std::vector<ScratchSpec>& scratch) {
  const bool same =
      scratch.size() == scratch_.size() &&
      std::equal(scratch.begin(), scratch.end(), scratch_.begin(), [](const ScratchSpec& a, const Buffer& b) {
        return a.name == b.spec.name && a.dtype == b.spec.dtype && a.count == b.spec.count &&
               a.zeroed == b.zeroed;
      });
  if (same) return;
  scratch_.clear();
  for (const ScratchSpec& wanted : scratch) {
    const BufferSpec spec{wanted.name, wanted.dtype, wanted.count, false, false, {}, {}, {}};
    const std::size_t margin = guard_margins_ ? guard_margin_bytes(bytes_of(spec)) : 0;
    Buffer buffer{spec, {spec}, margin, canary_pattern(margin), guarded(spec, margin), {}, {}, {}};
    buffer.zeroed = wanted.zeroed;
    scratch_.push_back(std::move(buffer));
  }
}

void DeviceState::zero_scratch() const {
  for (const Buffer& buffer : scratch_)
    if (buffer.zeroed && bytes_of(buffer.spec) > 0)
      cuda::check(cuda::driver().cuMemsetD8Async(buffer.payload(Role::variant), 0, bytes_of(buffer.spec),
                                                 stream.get()),
                  "cuMemsetD8Async");
}

void DeviceState::use_problem(std::size_t problem) noexcept {
  problem_ = problem;
  for (auto& buffer : buffers_)
    if (problem < buffer.per_problem.size()) buffer.spec = buffer.per_problem[problem];
}

void DeviceState::load_derived_inputs(const std::string& cubin, const std::string& kernel) {
  derived_inputs_module = cuda::Module::load(cubin);
  derived_inputs = derived_inputs_module.function(kernel);
}

void DeviceState::fill_inputs(std::uint64_t seed, Role role, int special) const {
  fill(seed, role, special, true);
}

void DeviceState::fill_own_copies(std::uint64_t seed, Role role, int special) const {
  fill(seed, role, special, false);
}

void DeviceState::fill(std::uint64_t seed, Role role, int special, bool shared_too) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    const BufferSpec& spec = buffer.spec;
    if (!shared_too && spec.is_input && !spec.is_output) continue;  // shared, checksummed: derived ones too
    const std::uint64_t data_seed = buffer_seed(seed, i);
    const bool special_fill = special >= 0 && static_cast<std::size_t>(special) < spec.special_fills.size();
    const FillSpec& fill = special_fill ? spec.special_fills[static_cast<std::size_t>(special)] : spec.fill;
    if ((spec.is_input || !spec.is_output) && fill.kind != FillSpec::Kind::derived)
      builtins.fill(stream.get(), buffer.payload(role), spec.dtype, spec.count, fill, data_seed);
    else
      builtins.poison(stream.get(), buffer.payload(role), spec.dtype, spec.count);
  }
  if (role == Role::variant)
    for (const Buffer& buffer : scratch_)
      builtins.poison(stream.get(), buffer.payload(role), buffer.spec.dtype, buffer.spec.count);
}

void DeviceState::copy_constant_symbols(Role role) const {
  const cuda::Module& module = role == Role::reference ? reference_module : variant_module;
  if (module.get() == nullptr) return;
  for (const Buffer& buffer : buffers_) {
    const BufferSpec& spec = buffer.spec;
    if (spec.constant_symbol.empty()) continue;
    CUdeviceptr symbol = 0;
    std::size_t symbol_bytes = 0;
    const CUresult found =
        cuda::driver().cuModuleGetGlobal(&symbol, &symbol_bytes, module.get(), spec.constant_symbol.c_str());
    if (found == CUDA_ERROR_NOT_FOUND)
      throw Error("the kernel has no __constant__ variable '" + spec.constant_symbol + "' for argument '" +
                  spec.name + "' (constant memory)");
    cuda::check(found, "cuModuleGetGlobal");
    const std::size_t bytes = bytes_of(spec);
    if (bytes > symbol_bytes)
      throw Error("argument '" + spec.name + "' holds " + std::to_string(bytes) +
                  " bytes; its __constant__ '" + spec.constant_symbol + "' only " +
                  std::to_string(symbol_bytes));
    cuda::check(cuda::driver().cuMemcpyDtoDAsync(symbol, buffer.payload(role), bytes, stream.get()),
                "cuMemcpyDtoDAsync");
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

ErrorStats DeviceState::compare_outputs() const {
  cuda::check(cuda::driver().cuMemsetD32Async(tallies.get(), 0, tallies.bytes() / 4, stream.get()),
              "cuMemsetD32Async");
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    if (!buffer.spec.is_output) continue;
    builtins.compare(stream.get(), buffer.payload(Role::reference), buffer.payload(Role::variant),
                     buffer.spec.dtype, buffer.spec.count, tallies.get() + kTallyBytes * i);
  }
  stream.synchronize();
  std::vector<std::uint64_t> words(tallies.bytes() / 8);
  tallies.download(words.data(), tallies.bytes());
  std::optional<ErrorStats> merged;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (!buffers_[i].spec.is_output) continue;
    const std::uint64_t* tally = words.data() + 4 * i;
    const ErrorStats stats = error_stats(std::bit_cast<double>(tally[0]), std::bit_cast<double>(tally[1]),
                                         std::bit_cast<double>(tally[2]), static_cast<std::int64_t>(tally[3]),
                                         buffers_[i].spec.count);
    merged = merged ? merge(*merged, stats) : stats;
  }
  if (!merged) throw Error("internal: a problem without output buffers");
  return *merged;
}

void DeviceState::keep_outputs() {
  for (auto& buffer : buffers_) {
    if (!buffer.spec.is_output) continue;
    if (buffer.kept.bytes() < bytes_of(buffer.spec)) buffer.kept = cuda::DeviceMemory(bytes_of(buffer.spec));
    cuda::check(cuda::driver().cuMemcpyDtoDAsync(buffer.kept.get(), buffer.payload(Role::variant),
                                                 bytes_of(buffer.spec), stream.get()),
                "cuMemcpyDtoDAsync");
  }
}

std::optional<std::pair<std::string, BitwiseDifference>> DeviceState::differs_from_kept() const {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    if (!buffer.spec.is_output) continue;
    if (buffer.kept.bytes() == 0) throw Error("internal: differs_from_kept before keep_outputs");
    const CUdeviceptr tally = tallies.get() + kTallyBytes * i;
    cuda::check(cuda::driver().cuMemsetD32Async(tally, 0, 2, stream.get()), "cuMemsetD32Async");
    cuda::check(cuda::driver().cuMemsetD32Async(tally + 8, 0xffffffffu, 2, stream.get()), "cuMemsetD32Async");
    builtins.differ(stream.get(), buffer.kept.get(), buffer.payload(Role::variant), buffer.spec.dtype,
                    buffer.spec.count, tally);
  }
  stream.synchronize();
  std::vector<std::uint64_t> words(tallies.bytes() / 8);
  tallies.download(words.data(), tallies.bytes());
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& buffer = buffers_[i];
    if (!buffer.spec.is_output || words[4 * i] == 0) continue;
    BitwiseDifference difference;
    difference.differing = static_cast<std::int64_t>(words[4 * i]);
    difference.first = static_cast<std::int64_t>(words[4 * i + 1]);
    const std::size_t size = size_of(buffer.spec.dtype);
    const std::size_t offset = static_cast<std::size_t>(difference.first) * size;
    std::string first(size, '\0'), second(size, '\0');
    cuda::check(cuda::driver().cuMemcpyDtoH(first.data(), buffer.kept.get() + offset, size), "cuMemcpyDtoH");
    cuda::check(cuda::driver().cuMemcpyDtoH(second.data(), buffer.payload(Role::variant) + offset, size),
                "cuMemcpyDtoH");
    difference.first_a = to_doubles(first.data(), buffer.spec.dtype, 1).front();
    difference.first_b = to_doubles(second.data(), buffer.spec.dtype, 1).front();
    return std::make_pair(buffer.spec.name, difference);
  }
  return std::nullopt;
}

void DeviceState::arm_guards(Role role) const {
  if (!guard_margins_) return;
  for (const Buffer* buffer : seen_by(role)) {
    const CUdeviceptr base = buffer->copy(role).get();
    builtins.canary(stream.get(), base, buffer->margin);
    builtins.canary(stream.get(), base + buffer->margin + bytes_of(buffer->spec), buffer->margin);
  }
}

std::optional<GuardBreach> DeviceState::find_breach(Role role) const {
  if (!guard_margins_) return std::nullopt;
  std::vector<std::uint8_t> margin;
  for (const Buffer* buffer : seen_by(role)) {
    margin.resize(buffer->margin);
    const std::size_t payload = bytes_of(buffer->spec);
    const CUdeviceptr base = buffer->copy(role).get();
    for (const GuardSide side : {GuardSide::before, GuardSide::after}) {
      const CUdeviceptr at = side == GuardSide::before ? base : base + buffer->margin + payload;
      cuda::check(cuda::driver().cuMemcpyDtoH(margin.data(), at, margin.size()), "cuMemcpyDtoH");
      if (auto breach = evotune::find_breach(buffer->spec.name, side, payload, margin, buffer->canary))
        return breach;
    }
  }
  return std::nullopt;
}

std::vector<BufferAllocation> DeviceState::allocations() const {
  std::vector<BufferAllocation> all;
  for (const auto& buffer : buffers_) {
    if (!buffer.spec.is_output) {
      all.push_back({buffer.spec.name, "input", buffer.payload(Role::reference), bytes_of(buffer.spec)});
      continue;
    }
    all.push_back({buffer.spec.name, "reference", buffer.payload(Role::reference), bytes_of(buffer.spec)});
    all.push_back({buffer.spec.name, "variant", buffer.payload(Role::variant), bytes_of(buffer.spec)});
  }
  for (const auto& buffer : scratch_)
    all.push_back({buffer.spec.name, "scratch", buffer.payload(Role::variant), bytes_of(buffer.spec)});
  return all;
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
  for (auto& buffer : scratch_) buffer.shared.abandon();
  for (auto& buffer : buffers_) {
    buffer.shared.abandon();
    buffer.reference.abandon();
    buffer.variant.abandon();
    buffer.kept.abandon();
  }
  for (auto& event : events) event.abandon();
  l2_scratch.abandon();
  checksums.abandon();
  tallies.abandon();
  variant_module.abandon();
  derived_inputs_module.abandon();
  reference_module.abandon();
  builtins.abandon();
  stream.abandon();
  context.abandon();
}

}  // namespace evotune
