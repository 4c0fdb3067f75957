// Everything an evaluator holds in the device's primary context, built in one piece and thrown away in
// one piece when a fault or a hung kernel forces a context reset.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "core/outcome.hpp"
#include "cuda/resources.hpp"
#include "eval/builtin_kernels.hpp"
#include "eval/compare.hpp"
#include "eval/guard_regions.hpp"

namespace evotune {

// Whose copy of an output buffer a launch writes: inputs are shared, outputs are not.
enum class Role { reference, variant };

class DeviceState {
 public:
  // Retains the primary context, makes it current, then loads the builtin and reference cubins and
  // allocates every buffer (outputs twice) with a guard margin (guard_margin_bytes) before and after it, an
  // L2-flush scratch of scratch_bytes and 2 * event_pairs + 1 timing events. Throws CudaError.
  // other_problems: the buffers of each extra problem (the same names, types and order, other counts);
  // every buffer is allocated for the largest of its counts. guard_margins false: no margins (every buffer,
  // scratch too, allocated at exactly its size; arm_guards and find_breach then see nothing).
  DeviceState(int ordinal, const std::vector<BufferSpec>& buffers,
              const std::vector<std::vector<BufferSpec>>& other_problems, const std::string& builtin_cubin,
              const std::string& reference_cubin, const std::string& reference_kernel,
              std::size_t scratch_bytes, int event_pairs, bool guard_margins = true);
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;

  // Device address of buffer `name` as `role` sees it (past its front margin, so aligned as the allocation
  // is); nullopt when there is no such buffer.
  std::optional<std::uint64_t> address(const std::string& name, Role role) const;

  // Which problem the buffers hold from now on: 0 the main one, i the (i-1)th other one. Every method below
  // works on that problem's element counts; the addresses stay.
  void use_problem(std::size_t problem) noexcept;
  std::size_t problem() const noexcept { return problem_; }

  // Loads the space's DerivedInputs kernel (derived_inputs_module, derived_inputs). Throws CudaError.
  void load_derived_inputs(const std::string& cubin, const std::string& kernel);

  // The variant's scratch buffers from now on (LaunchSpec::scratch), each between guard margins like the
  // problem's buffers: allocated afresh unless those there have the same names, types and counts. address()
  // finds them, fill_inputs(Role::variant) NaN-poisons them and the variant's guards cover them; never
  // compared.
  void use_scratch(const std::vector<ScratchSpec>& scratch);

  // Clears the variant's zeroed scratch buffers (ScratchSpec::zeroed) on the stream: the first step of every
  // execution of the variant, so inside its timing (and its CUDA graph) as the exported launchers do it. The
  // fills poison them like any scratch, so a variant that runs without this step reads NaN bits, not zeros.
  void zero_scratch() const;

  // Refills every input (and both copies of read-write buffers) from seed and NaN-poisons `role`'s
  // write-only outputs, its scratch buffers and the inputs of FillType derived (which the DerivedInputs
  // kernel writes next); asynchronous on the stream. special >= 0: each buffer takes its special fill of that
  // index (BufferSpec::special_fills) where it has one.
  void fill_inputs(std::uint64_t seed, Role role, int special = -1) const;
  // As fill_inputs, but the read-only inputs (the shared, checksummed ones, derived ones included) left as
  // they are: `role`'s read-write buffers refilled, its write-only outputs and scratch poisoned. For a launch
  // on the inputs that the last fill_inputs with the same seed and special gave.
  void fill_own_copies(std::uint64_t seed, Role role, int special = -1) const;

  // Copies each buffer with a BufferSpec::constant_symbol into that __constant__ variable of `role`'s module
  // (none loaded: nothing): the last step of preparing the inputs, after the derived ones are computed.
  // Throws Error when the module lacks it or it is smaller than the buffer.
  void copy_constant_symbols(Role role) const;

  // Copies `role`'s output buffers to the host as doubles, one vector per output BufferSpec, in order.
  std::vector<std::vector<double>> download_outputs(Role role) const;

  // The variant's outputs against the reference's, compared on the device (BuiltinKernels::compare), the
  // output buffers' figures merged (compare.hpp's merge); waits for the stream.
  ErrorStats compare_outputs() const;

  // Copies the variant's outputs aside on the device, for differs_from_kept after a second launch.
  void keep_outputs();

  // The first output buffer (its name) whose variant copy differs bit for bit from what keep_outputs kept,
  // with how; nullopt when all are equal. Waits for the stream.
  std::optional<std::pair<std::string, BitwiseDifference>> differs_from_kept() const;

  // Writes the canary into both margins of every buffer `role`'s kernel sees (inputs and its own outputs).
  // Asynchronous on the stream.
  void arm_guards(Role role) const;

  // The first breach of a margin armed for `role`, buffers in order, the front margin first; reads the
  // margins back, so call it once the stream is idle.
  std::optional<GuardBreach> find_breach(Role role) const;

  // A checksum of each read-only input buffer (inputs that are not outputs), in buffer order, with its
  // name; waits for the stream.
  std::vector<std::pair<std::string, std::uint64_t>> input_checksums() const;

  // Each buffer copy's payload (address and bytes of the problem in use; scratch buffers as they are now).
  std::vector<BufferAllocation> allocations() const;

  // Forgets every handle, the context's retain included, without a driver call: for a state whose
  // context is about to be reset (cuda::reset_primary_context), which destroys them all.
  void abandon() noexcept;

  cuda::PrimaryContext context;
  cuda::Stream stream;
  BuiltinKernels builtins;
  cuda::Module reference_module;
  CUfunction reference = nullptr;
  cuda::Module derived_inputs_module;  // the space's DerivedInputs kernel, where it has one
  CUfunction derived_inputs = nullptr;
  cuda::Module variant_module;  // the variant being evaluated; kept here so a reset also forgets it
  cuda::DeviceMemory l2_scratch;
  cuda::DeviceMemory checksums;  // one u64 per buffer, for input_checksums
  cuda::DeviceMemory tallies;    // four u64 per buffer, for compare_outputs and differs_from_kept
  std::vector<cuda::Event> events;

 private:
  // Each copy is margin + payload + margin bytes; kernels see the payload.
  struct Buffer {
    BufferSpec spec;                      // as the problem in use has it
    std::vector<BufferSpec> per_problem;  // the main problem first, then each other one
    std::size_t margin = 0;
    std::vector<std::uint8_t> canary;  // what arm_guards writes into each margin: canary_pattern(margin)
    cuda::DeviceMemory shared;         // inputs (and buffers neither read nor written by the problem)
    cuda::DeviceMemory reference;      // outputs: the reference's copy
    cuda::DeviceMemory variant;        // outputs: the variant's copy
    cuda::DeviceMemory kept;           // outputs: keep_outputs' copy of the variant's (allocated then)
    bool zeroed = false;               // scratch: zero_scratch clears it
    const cuda::DeviceMemory& copy(Role role) const;
    CUdeviceptr payload(Role role) const { return copy(role).get() + margin; }
  };
  bool guard_margins_ = true;
  std::size_t problem_ = 0;
  std::vector<Buffer> buffers_;
  std::vector<Buffer> scratch_;  // in `shared`; spec.is_input and spec.is_output false
  // fill_inputs (shared_too) or fill_own_copies.
  void fill(std::uint64_t seed, Role role, int special, bool shared_too) const;
  // The buffers a `role` launch sees: the problem's, and the variant's the scratch buffers too.
  std::vector<const Buffer*> seen_by(Role role) const;
};

}  // namespace evotune
