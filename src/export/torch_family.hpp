// The family-specific part of an exported PyTorch op (evotune export --torch): which tensors the op takes and
// how they map onto a space's buffers and problem sizes, its checks, its output and its text. The generic
// part (torch_export.cpp) writes the dispatchers, the dtype dispatch, the launch, the build and the
// registration around it. A family is recognised by its buffers and sizes, so a space file needs no field.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "space/search_space.hpp"

namespace evotune {

// How one of the space's buffers or sizes is computed from the op's arguments, in the binding (C++) and in
// the loader's ctypes path (Python).
struct TorchExpression {
  std::string cpp, python;
};

// One op a family registers for a space: torch.ops.evotune.<name><suffix>(schema) -> returns, implemented by
// the binding's op_cuda<suffix>, op_meta<suffix> and op_cpu<suffix>.
// A `composite` form is registered as CompositeImplicitAutograd instead (the binding's op_composite<suffix>):
// it calls the family's other ops, so that autograd and torch.compile see those.
struct TorchOpForm {
  std::string suffix;   // "" for the op the export names, "_with_lse" for attention's (o, lse)
  std::string returns;  // "Tensor", "(Tensor, Tensor)"
  bool composite = false;
};

struct TorchFamily {
  std::string name;         // "attention": its checks are torch_op_checks_attention.hpp
  std::string schema;       // the op's arguments as torch.library declares them
  const char* checks;       // torch_op_checks_<name>.hpp, written beside the binding
  const char* cpp_code;     // the binding's family part: check, op_cuda, op_meta, op_cpu
  const char* python_code;  // the loader's family part: _register(op, prebuilt)
  const char* readme;       // the README's paragraph on the op
  std::string usage;        // the loader's docstring lines on the op
  // Every buffer and size the family knows (a space of the family has some of them): how the op computes it.
  std::map<std::string, TorchExpression> buffers, sizes;
  // Buffers that are fp32 whatever the op's dtype (attention's row log-sum-exps, LSE); the others are of the
  // op's dtype.
  std::vector<std::string> float32_buffers;
  // Outputs that a space may hold in fp32 instead of the op's dtype (the GEMM's D: an fp32 product of 16-bit
  // inputs); one choice for all of an op's spaces, which the op's output then has.
  std::vector<std::string> float32_or_dtype_outputs;
  // "" when `space` is of this family, else why not.
  std::string (*refusal)(const SearchSpace& space);
  // The family's own template values for `space` ({{KEY}} -> text); `differentiable`: backward spaces were
  // exported with it.
  std::map<std::string, std::string> (*values)(const SearchSpace& space, bool differentiable);
  // The ops the binding registers for `space`, the one the export names first.
  std::vector<TorchOpForm> (*forms)(const SearchSpace& space, bool differentiable);
  // A backward family's spaces compute the gradients of another family's op, exported with its spaces as
  // one differentiable op: `differentiates` names that family ("" for a family of ops of their own), and
  // `forward_buffers` the buffers its forward spaces must write for this backward (attention's LSE). Its
  // code lives in the forward family's parts; its own checks, code and readme are unused.
  std::string differentiates;
  std::vector<std::string> forward_buffers;
};

// Every family an op can be exported for.
const std::vector<TorchFamily>& torch_families();

// The family of `space`; throws Error (one line) saying why each family refuses it.
const TorchFamily& torch_family_of(const SearchSpace& space);

// The one element type of the space's Vector buffers (the op's dtype): its family's float32_buffers aside
// (those must be fp32), its float32_or_dtype_outputs where fp32, and integer ones (a cache's lengths or block
// table, the family's to check); throws Error when they mix types or are not 16-bit floats.
DType torch_element_type(const SearchSpace& space);

// Whether the space holds its family's float32_or_dtype_outputs in fp32 (all of them, or none: Error).
bool torch_float32_outputs(const SearchSpace& space);

// Families' definitions (torch_attention.cpp, torch_attention_backward.cpp, torch_gemm.cpp,
// torch_decode.cpp).
TorchFamily attention_torch_family();
// The attention families' problem sizes from q, k and is_causal (the forward's and the backward's alike).
std::map<std::string, TorchExpression> attention_torch_sizes();
TorchFamily attention_backward_torch_family();
TorchFamily gemm_torch_family();
TorchFamily decode_torch_family();

}  // namespace evotune

namespace evotune {

// For a family's refusal: "" when the space's buffers (Vector arguments that are neither scratch nor tensor
// maps) are the read-only `inputs` and the written `outputs` (those in `optional_buffers` may be missing),
// and its sizes are `sizes` (those in `optional_sizes` may be missing); else what differs.
std::string buffers_and_sizes_refusal(const SearchSpace& space, const std::vector<std::string>& inputs,
                                      const std::vector<std::string>& outputs,
                                      const std::vector<std::string>& optional_buffers,
                                      const std::vector<std::string>& sizes,
                                      const std::vector<std::string>& optional_sizes);

// Whether the space has the problem size `name`.
bool has_size(const SearchSpace& space, const std::string& name);
// Whether the space has the buffer `name` (a Vector argument that is neither scratch nor a tensor map).
bool has_buffer(const SearchSpace& space, const std::string& name);

}  // namespace evotune
