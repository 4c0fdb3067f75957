// A kernel launch with every expression already evaluated: what the evaluator runs, knowing no expressions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace evotune {

// How an input buffer is filled before each validation. derived: NaN-poisoned, then written by the space's
// DerivedInputs kernel from the other inputs once they are filled (O and LSE from Q, K, V).
struct FillSpec {
  enum class Kind { random_uniform, constant, derived } kind = Kind::random_uniform;
  double low = -1.0;  // random_uniform range
  double high = 1.0;
  double value = 0.0;  // constant
};

// A device buffer of the problem. Inputs are filled; outputs are NaN-poisoned and compared.
struct BufferSpec {
  std::string name;
  DType dtype = DType::f32;
  std::int64_t count = 0;  // elements
  bool is_input = true;    // AccessType ReadOnly or ReadWrite
  bool is_output = false;  // AccessType WriteOnly or ReadWrite
  FillSpec fill;
  // Extra validation rounds on inputs a random fill rarely gives (large magnitudes, zeros): special round i
  // fills this buffer with special_fills[i] (its usual fill when it has fewer).
  std::vector<FillSpec> special_fills;
  // Non-empty: after every fill, the buffer's contents are also copied into the kernel module's __constant__
  // variable of this name (T1's MemType "Constant"); the buffer is still passed where a launch names it.
  std::string constant_symbol;
};

// A TMA tensor map over a buffer (MemoryType TensorMap) with every expression evaluated: encoded with
// cuTensorMapEncodeTiled from the buffer's device address for each launch, passed as 128 bytes by value.
struct TensorMapSpec {
  std::string buffer;                 // the Vector argument it describes
  std::vector<std::int64_t> dims;     // elements per dimension, innermost first (1..5)
  std::vector<std::int64_t> strides;  // bytes between consecutive indices of dims 1.. (dims.size() - 1)
  std::vector<std::int64_t> box;      // elements per dimension of one copy
  int swizzle_bytes = 0;              // 0 (none), 32, 64 or 128

  bool operator==(const TensorMapSpec&) const = default;
};

// One kernel argument, in the kernel's parameter order: a buffer (by name), a scalar value, or a tensor map
// over a buffer.
struct ArgSpec {
  enum class Kind { buffer, scalar, tensor_map } kind = Kind::buffer;
  std::string name;
  DType dtype = DType::f32;  // scalar's type (buffers and tensor maps: the buffer's element type)
  double value = 0.0;        // scalar value, converted to dtype when packed
  TensorMapSpec map;         // tensor_map only
};

// A buffer of the variant's own (MemoryType Scratch: split-K partial sums, log-sum-exps) that its launches
// pass between each other: allocated per variant, NaN-poisoned before every validation launch, never
// compared. A zeroed one (FillType Zero: counters, sums by atomics) is set to zero before every execution of
// the variant, as a step of it (timed with it; the exported launchers clear it too).
struct ScratchSpec {
  std::string name;
  DType dtype = DType::f32;
  std::int64_t count = 0;  // elements; 0 is allowed (a configuration that needs none)
  bool zeroed = false;     // cleared to zero before the first launch of every execution
};

// One kernel launch, and for a variant of several launches (KernelSpecification.Launches) the ones that
// follow it in order, in the same module, on the same stream: one measurement times them all.
struct LaunchSpec {
  std::string kernel_name;                      // the extern "C" symbol
  std::array<std::uint32_t, 3> grid{1, 1, 1};   // blocks
  std::array<std::uint32_t, 3> block{1, 1, 1};  // threads
  std::uint32_t dynamic_smem_bytes = 0;
  std::array<std::uint32_t, 3> cluster{1, 1, 1};  // thread-block cluster, blocks (1, 1, 1: none)
  // A programmatic dependent of the launch before it (a `then` entry; Launches' "Programmatic"; the first
  // launch only with "Programmatic": "always", behind the kernel the stream ran before the call): on a device
  // of compute capability 9.0 or later it may start before that grid ends and waits for it in the kernel
  // (griddepcontrol.wait); elsewhere an ordinary launch.
  bool programmatic = false;
  std::vector<ArgSpec> args;
  std::vector<LaunchSpec> then;  // the launches after this one (each with no `then` or scratch of its own)
  std::vector<ScratchSpec> scratch;  // the scratch buffers the launches name, with this problem's sizes
};

// The launch and the ones that follow it, in order.
inline std::vector<const LaunchSpec*> launch_steps(const LaunchSpec& launch) {
  std::vector<const LaunchSpec*> steps{&launch};
  for (const auto& next : launch.then) steps.push_back(&next);
  return steps;
}

// Whether `launch` runs as a programmatic dependent on a device of compute capability `cc_major`: a
// Programmatic launch on 9.0 and later; an ordinary one below.
inline bool runs_programmatic(const LaunchSpec& launch, int cc_major) {
  return launch.programmatic && cc_major >= 9;
}

// Acceptance of a variant's outputs against the reference's.
// Another problem every variant must also get right (Validation.ExtraProblems, e.g. one past a tile): what
// it changes, its buffers (the main problem's names, types and order) and the reference's launch for it.
// The variant's own launch for it comes with each job; its cubin is the main problem's.
struct ExtraProblem {
  std::string label;  // "S=513"
  std::vector<BufferSpec> buffers;
  LaunchSpec reference_launch;
  // The DerivedInputs kernel's launch for it, where the space has one.
  std::optional<LaunchSpec> derived_launch = std::nullopt;
};

struct Tolerances {
  double max_abs = 2e-2;
  double rel_l2 = 1e-2;
  // The space's kernels are deterministic: two launches on the same inputs must give bit-identical outputs
  // (a race then shows as Status::nondeterministic). False for spaces whose kernels may use atomics. A space
  // whose Validation.Deterministic is an expression decides per config: each job says (JobMessage).
  bool deterministic = true;
};

}  // namespace evotune
