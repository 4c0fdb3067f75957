// The attention family's argument checks (evotune export --torch): q [batch, heads, sequence, head_dim], k
// and v [batch, kv_heads, kv_sequence, head_dim] (grouped heads and a key length of their own where the
// spaces have them), and for the backward o, grad_o like q and lse [batch, heads, sequence] float32, on top
// of the checks every op makes (torch_op_checks.hpp).
#pragma once

#include "torch_op_checks.hpp"

namespace evotune_op {

// "" when q, k and v (`tensors`, in that order) suit the op `op` (kernels tuned for `dtypes`): the common
// checks, then 4 dimensions each, v of k's shape, one batch and head_dim, and q's heads a multiple of k's
// (`grouped_heads`: the spaces have HKV; else one number of heads) and any key length (`key_length`: the
// spaces have SKV; else q's); else the message to raise.
inline std::string check_attention_inputs(const std::string& op, const std::vector<std::string>& dtypes,
                                          const std::vector<TensorView>& tensors, bool need_cuda,
                                          bool grouped_heads, bool key_length) {
  const std::string common = check_tensors(op, dtypes, tensors, need_cuda);
  if (!common.empty()) return common;
  for (const TensorView& t : tensors)
    if (t.sizes.size() != 4)
      return op + ": " + t.name + " must have 4 dimensions [batch, heads, sequence, head_dim], got shape " +
             join(t.sizes);
  const TensorView &q = tensors[0], &k = tensors[1], &v = tensors[2];
  const std::string shapes = " (q has shape " + join(q.sizes) + ", k " + join(k.sizes) + ")";
  if (v.sizes != k.sizes)
    return op + ": v has shape " + join(v.sizes) + " but k has " + join(k.sizes) + " (v must have k's shape)";
  if (k.sizes[0] != q.sizes[0])
    return op + ": k has batch " + std::to_string(k.sizes[0]) + " but q has " + std::to_string(q.sizes[0]) +
           " (q, k and v must have one batch)";
  if (k.sizes[3] != q.sizes[3])
    return op + ": k has head_dim " + std::to_string(k.sizes[3]) + " but q has " +
           std::to_string(q.sizes[3]) + " (q, k and v must have one head_dim)";
  if (k.sizes[1] != q.sizes[1] && !grouped_heads)
    return op + ": k has " + std::to_string(k.sizes[1]) + " heads but q has " + std::to_string(q.sizes[1]) +
           ", and the op's spaces have no grouped heads (no size HKV): q, k and v must have one shape";
  if (k.sizes[1] != q.sizes[1] && (k.sizes[1] == 0 || q.sizes[1] % k.sizes[1] != 0))
    return op + ": q has " + std::to_string(q.sizes[1]) + " heads, not a multiple of k's " +
           std::to_string(k.sizes[1]) + " (grouped heads: each k and v head serves heads / kv_heads of q's)" +
           shapes;
  if (k.sizes[2] != q.sizes[2] && !key_length)
    return op + ": k has sequence length " + std::to_string(k.sizes[2]) + " but q has " +
           std::to_string(q.sizes[2]) +
           ", and the op's spaces have no key length of their own (no size SKV): q, k and v must have one "
           "shape";
  return "";
}

// "" when q, k, v, o, lse and grad_o (`tensors`, in that order) suit the op's backward: q, k and v as the
// forward takes them, o and grad_o of q's dtype and shape, lse float32 [batch, heads, sequence] (the
// forward's); else the message to raise.
inline std::string check_attention_backward_inputs(const std::string& op,
                                                   const std::vector<std::string>& dtypes,
                                                   const std::vector<TensorView>& tensors, bool need_cuda,
                                                   bool grouped_heads, bool key_length) {
  const TensorView &q = tensors[0], &o = tensors[3], &lse = tensors[4], &grad_o = tensors[5];
  std::string problem =
      check_attention_inputs(op, dtypes, {q, tensors[1], tensors[2]}, need_cuda, grouped_heads, key_length);
  if (problem.empty()) problem = check_tensors(op, dtypes, {q, o, grad_o}, need_cuda);
  if (!problem.empty()) return problem;
  for (const TensorView* t : {&o, &grad_o})
    if (t->sizes != q.sizes)
      return op + ": " + t->name + " has shape " + join(t->sizes) + " but q has " + join(q.sizes) + " (" +
             t->name + " must have q's shape)";
  if (lse.dtype != "float32")
    return op + ": lse must be float32 (the forward's row log-sum-exps), got " + lse.dtype;
  problem = check_tensors(op, {"float32"}, {lse}, need_cuda);
  if (!problem.empty()) return problem;
  if (need_cuda && lse.device != q.device)
    return op + ": lse is on " + lse.device + " but q is on " + q.device;
  const std::vector<std::int64_t> rows{q.sizes[0], q.sizes[1], q.sizes[2]};
  if (lse.sizes != rows)
    return op + ": lse has shape " + join(lse.sizes) + " but must be " + join(rows) +
           " ([batch, heads, sequence] of q, as the forward writes it)";
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
// For ctypes (the arrays as evotune_op::c_tensors reads them; dtypes: the tuned ones, comma-separated;
// grouped_heads and key_length: whether the spaces have HKV and SKV).
extern "C" int evotune_check_attention(const char* op, const char* dtypes, int count,
                                       const char* const* names, const char* const* tensor_dtypes,
                                       const char* const* devices, const int* dims, const long long* sizes,
                                       const long long* strides, const unsigned long long* addresses,
                                       int need_cuda, char* message, int capacity, int grouped_heads,
                                       int key_length) {
  const auto tensors =
      evotune_op::c_tensors(count, names, tensor_dtypes, devices, dims, sizes, strides, addresses);
  return evotune_op::c_message(
      evotune_op::check_attention_inputs(op, evotune_op::c_dtypes(dtypes), tensors, need_cuda != 0,
                                         grouped_heads != 0, key_length != 0),
      message, capacity);
}

// The backward's: q, k, v, o, lse, grad_o.
extern "C" int evotune_check_attention_backward(const char* op, const char* dtypes, int count,
                                                const char* const* names, const char* const* tensor_dtypes,
                                                const char* const* devices, const int* dims,
                                                const long long* sizes, const long long* strides,
                                                const unsigned long long* addresses, int need_cuda,
                                                char* message, int capacity, int grouped_heads,
                                                int key_length) {
  if (count != 6)
    return evotune_op::c_message(std::string(op) + ": the backward takes 6 tensors", message, capacity);
  const auto tensors =
      evotune_op::c_tensors(count, names, tensor_dtypes, devices, dims, sizes, strides, addresses);
  return evotune_op::c_message(
      evotune_op::check_attention_backward_inputs(op, evotune_op::c_dtypes(dtypes), tensors, need_cuda != 0,
                                                  grouped_heads != 0, key_length != 0),
      message, capacity);
}
#endif
