// The attention family of exported ops: torch.ops.evotune.<space>(q, k, v, is_causal=False) over a space of
// Q [B, H, S, D], K, V [B, HKV, SKV, D] -> O [B, H, S, D], and where the space also writes the rows'
// log-sum-exps LSE [B, H, S] fp32, torch.ops.evotune.<space>_with_lse(q, k, v, is_causal=False) -> (o, lse).
// Spaces without grouped heads (HKV) or a key length of their own (SKV) take q, k and v of one shape. With
// backward spaces (torch_attention_backward.cpp) the op is differentiable: <space>_backward runs them,
// <space> is <space>_with_lse's o, and the loader registers the autograd formula.
#include "export/torch_family.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

// The README's lines on the (o, lse) op, where the space writes LSE ({{NAME}} is filled in after them).
const char* const kLseReadme =
    "With the space's row log-sum-exps, `torch.ops.evotune.{{NAME}}_with_lse(q, k, v, is_causal=False)` "
    "returns `(o, lse)`: lse of shape [B, H, S], float32, lse[b, h, i] = ln sum_j exp(q_i . k_j / sqrt(D)) "
    "over the keys row i sees (natural log; 0 for a row that sees none in a problem with keys, -inf for "
    "every row when SKV = 0), what a backward pass recomputes the softmax from (`load.load_prebuilt()` "
    "registers it as `torch.ops.evotune_prebuilt.{{NAME}}_with_lse`).";

// The README's lines on autograd, with and without backward spaces.
const char* const kBackwardReadme =
    "Differentiable: exported with the backward spaces, the op (and `_with_lse`, whose lse is not "
    "differentiable) has a backward through `torch.library.register_autograd` (`load.build()` and "
    "`load.load_prebuilt()` register it): the forward saves q, k, v, o and lse, and the backward runs "
    "`torch.ops.evotune.{{NAME}}_backward(q, k, v, o, lse, grad_o, is_causal) -> (dq, dk, dv)`, dk and dv of "
    "k's shape (summed over each group of heads); under torch.compile and in CUDA graphs too.";
const char* const kNoBackwardReadme =
    "Not differentiable: no backward spaces were exported, so a backward pass through the op raises a "
    "RuntimeError saying to export them (`evotune export FWD... BWD... --torch DIR`).";

std::string attention_refusal(const SearchSpace& space) {
  return buffers_and_sizes_refusal(space, {"Q", "K", "V"}, {"O", "LSE"}, {"LSE"},
                                   {"B", "H", "HKV", "S", "SKV", "D", "CAUSAL"}, {"CAUSAL", "HKV", "SKV"});
}

std::string cpp_bool(bool value) { return value ? "true" : "false"; }
std::string py_bool(bool value) { return value ? "True" : "False"; }

std::map<std::string, std::string> attention_values(const SearchSpace& space, bool differentiable) {
  const bool causal = has_size(space, "CAUSAL");
  const bool lse = has_buffer(space, "LSE");
  const bool grouped = has_size(space, "HKV");
  const bool key_length = has_size(space, "SKV");
  return {{"CAUSAL_VARIANTS", cpp_bool(causal)},
          {"CAUSAL_VARIANTS_PY", py_bool(causal)},
          {"LSE_OUTPUT", cpp_bool(lse)},
          {"LSE_OUTPUT_PY", py_bool(lse)},
          {"GROUPED_HEADS", cpp_bool(grouped)},
          {"GROUPED_HEADS_PY", py_bool(grouped)},
          {"KEY_LENGTH", cpp_bool(key_length)},
          {"KEY_LENGTH_PY", py_bool(key_length)},
          {"LSE_README", lse ? kLseReadme : ""},
          {"BACKWARD_README", differentiable ? kBackwardReadme : kNoBackwardReadme}};
}

std::vector<TorchOpForm> forms(const SearchSpace& space, bool differentiable) {
  // With a backward, <name> is <name>_with_lse's o, so that autograd gets the lse the backward needs.
  std::vector<TorchOpForm> forms{{"", "Tensor", differentiable}};
  if (has_buffer(space, "LSE")) forms.push_back({"_with_lse", "(Tensor, Tensor)"});
  return forms;
}

}  // namespace

std::map<std::string, TorchExpression> attention_torch_sizes() {
  return {{"B", {"q.size(0)", "q.shape[0]"}},
          {"H", {"q.size(1)", "q.shape[1]"}},
          {"HKV", {"k.size(1)", "k.shape[1]"}},
          {"S", {"q.size(2)", "q.shape[2]"}},
          {"SKV", {"k.size(2)", "k.shape[2]"}},
          {"D", {"q.size(3)", "q.shape[3]"}},
          {"CAUSAL", {"is_causal ? 1 : 0", "1 if is_causal else 0"}}};
}

TorchFamily attention_torch_family() {
  return {
      "attention",
      "Tensor q, Tensor k, Tensor v, bool is_causal=False",
      kTorchAttentionChecks,
      kTorchAttentionCpp,
      kTorchAttentionPy,
      kTorchAttentionReadme,
      "    o = op(q, k, v)     # like F.scaled_dot_product_attention(q, k, v); q [B, H, S, D], k and v "
      "[B, HKV, SKV, D] CUDA tensors",
      {{"Q", {"q.data_ptr()", "q"}},
       {"K", {"k.data_ptr()", "k"}},
       {"V", {"v.data_ptr()", "v"}},
       {"O", {"o.data_ptr()", "o"}},
       {"LSE", {"lse.data_ptr()", "lse"}}},
      attention_torch_sizes(),
      {"LSE"},
      {},
      attention_refusal,
      attention_values,
      forms,
      "",
      {},
  };
}

}  // namespace evotune
