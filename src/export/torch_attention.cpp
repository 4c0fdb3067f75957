// The attention family of exported ops: torch.ops.evotune.<space>(q, k, v, is_causal=False) over a space of
// Q, K, V -> O, each [B, H, S, D], and where the space also writes the rows' log-sum-exps LSE [B, H, S] fp32,
// torch.ops.evotune.<space>_with_lse(q, k, v, is_causal=False) -> (o, lse) (what a backward pass needs).
// Spaces with grouped heads or a key length of their own (HKV, SKV) take them from k (the op's checks keep
// them H and S for now: q, k and v of one shape).
#include "export/torch_family.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

// The README's lines on the (o, lse) op, where the space writes LSE ({{NAME}} is filled in after them).
const char* const kLseReadme =
    "With the space's row log-sum-exps, `torch.ops.evotune.{{NAME}}_with_lse(q, k, v, is_causal=False)` "
    "returns `(o, lse)`: lse of shape [B, H, S], float32, lse[b, h, i] = ln sum_j exp(q_i . k_j / sqrt(D)) "
    "over the keys row i sees (natural log; 0 for a row that sees none), what a backward pass recomputes the "
    "softmax from (`load.load_prebuilt()` registers it as `torch.ops.evotune_prebuilt.{{NAME}}_with_lse`).";

std::string refusal(const SearchSpace& space) {
  return buffers_and_sizes_refusal(space, {"Q", "K", "V"}, {"O", "LSE"}, {"LSE"},
                                   {"B", "H", "HKV", "S", "SKV", "D", "CAUSAL"}, {"CAUSAL", "HKV", "SKV"});
}

std::map<std::string, std::string> values(const SearchSpace& space) {
  const bool causal = has_size(space, "CAUSAL");
  const bool lse = has_buffer(space, "LSE");
  return {{"CAUSAL_VARIANTS", causal ? "true" : "false"},
          {"CAUSAL_VARIANTS_PY", causal ? "True" : "False"},
          {"LSE_OUTPUT", lse ? "true" : "false"},
          {"LSE_OUTPUT_PY", lse ? "True" : "False"},
          {"LSE_README", lse ? kLseReadme : ""}};
}

std::vector<TorchOpForm> forms(const SearchSpace& space) {
  std::vector<TorchOpForm> forms{{"", "Tensor"}};
  if (has_buffer(space, "LSE")) forms.push_back({"_with_lse", "(Tensor, Tensor)"});
  return forms;
}

}  // namespace

TorchFamily attention_torch_family() {
  return {
      "attention",
      "Tensor q, Tensor k, Tensor v, bool is_causal=False",
      kTorchAttentionChecks,
      kTorchAttentionCpp,
      kTorchAttentionPy,
      kTorchAttentionReadme,
      "    o = op(q, k, v)     # like F.scaled_dot_product_attention(q, k, v); [B, H, S, D] CUDA tensors",
      {{"Q", {"q.data_ptr()", "q"}},
       {"K", {"k.data_ptr()", "k"}},
       {"V", {"v.data_ptr()", "v"}},
       {"O", {"o.data_ptr()", "o"}},
       {"LSE", {"lse.data_ptr()", "lse"}}},
      {{"B", {"q.size(0)", "q.shape[0]"}},
       {"H", {"q.size(1)", "q.shape[1]"}},
       {"HKV", {"k.size(1)", "k.shape[1]"}},
       {"S", {"q.size(2)", "q.shape[2]"}},
       {"SKV", {"k.size(2)", "k.shape[2]"}},
       {"D", {"q.size(3)", "q.shape[3]"}},
       {"CAUSAL", {"is_causal ? 1 : 0", "1 if is_causal else 0"}}},
      {"LSE"},
      refusal,
      values,
      forms,
  };
}

}  // namespace evotune
