// Everything an evaluator holds in the device's primary context, built in one piece and thrown away in
// one piece when a fault or a hung kernel forces a context reset.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "cuda/resources.hpp"
#include "eval/builtin_kernels.hpp"

namespace evotune {

// Whose copy of an output buffer a launch writes: inputs are shared, outputs are not.
enum class Role { reference, variant };

class DeviceState {
 public:
  // Retains the primary context, makes it current, then loads the builtin and reference cubins and
  // allocates every buffer (outputs twice), an L2-flush scratch of scratch_bytes and 2 * event_pairs + 1
  // timing events. Throws CudaError.
  DeviceState(int ordinal, const std::vector<BufferSpec>& buffers, const std::string& builtin_cubin,
              const std::string& reference_cubin, const std::string& reference_kernel,
              std::size_t scratch_bytes, int event_pairs);
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  // Device address of buffer `name` as `role` sees it; nullopt when there is no such buffer.
  std::optional<std::uint64_t> address(const std::string& name, Role role) const;

  // Refills every input (and both copies of read-write buffers) from seed and NaN-poisons `role`'s
  // write-only outputs; asynchronous on the stream.
  void prepare(std::uint64_t seed, Role role) const;

  // Copies `role`'s output buffers to the host as doubles, one vector per output BufferSpec, in order.
  std::vector<std::vector<double>> download_outputs(Role role) const;

  // Forgets every handle, the context's retain included, without a driver call: for a state whose
  // context is about to be reset (cuda::reset_primary_context), which destroys them all.
  void abandon() noexcept;

  cuda::PrimaryContext context;
  cuda::Stream stream;
  BuiltinKernels builtins;
  cuda::Module reference_module;
  CUfunction reference = nullptr;
  cuda::Module variant_module;  // the variant being evaluated; kept here so a reset also forgets it
  cuda::DeviceMemory l2_scratch;
  std::vector<cuda::Event> events;

 private:
  struct Buffer {
    BufferSpec spec;
    cuda::DeviceMemory shared;     // inputs (and buffers neither read nor written by the problem)
    cuda::DeviceMemory reference;  // outputs: the reference's copy
    cuda::DeviceMemory variant;    // outputs: the variant's copy
  };
  std::vector<Buffer> buffers_;
};

}  // namespace evotune
