// The attention backward family: spaces of Q, K, V, O, dO and the forward's LSE -> dQ, dK, dV (the wgmma
// backward spaces), exported beside attention spaces as the op's backward,
// torch.ops.evotune.<name>_backward(q, k, v, o, lse, grad_o, is_causal=False) -> (dq, dk, dv). Its code is
// the attention family's (torch_op/attention.cpp.in and attention.py.in): the two make one differentiable op.
#include "export/torch_family.hpp"

namespace evotune {
namespace {

std::string backward_refusal(const SearchSpace& space) {
  return buffers_and_sizes_refusal(space, {"Q", "K", "V", "O", "dO", "LSE"}, {"dQ", "dK", "dV"}, {},
                                   {"B", "H", "HKV", "S", "SKV", "D", "CAUSAL"}, {"CAUSAL", "HKV", "SKV"});
}

}  // namespace

TorchFamily attention_backward_torch_family() {
  return {
      "attention_backward",
      "Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, Tensor grad_o, bool is_causal=False",
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      "",
      {{"Q", {"q.data_ptr()", "q"}},
       {"K", {"k.data_ptr()", "k"}},
       {"V", {"v.data_ptr()", "v"}},
       {"O", {"o.data_ptr()", "o"}},
       {"dO", {"grad_o.data_ptr()", "grad_o"}},
       {"LSE", {"lse.data_ptr()", "lse"}},
       {"dQ", {"dq.data_ptr()", "dq"}},
       {"dK", {"dk.data_ptr()", "dk"}},
       {"dV", {"dv.data_ptr()", "dv"}}},
      attention_torch_sizes(),
      {"LSE"},
      {},
      backward_refusal,
      [](const SearchSpace&, bool) { return std::map<std::string, std::string>{}; },
      [](const SearchSpace&, bool) {
        return std::vector<TorchOpForm>{{"_backward", "(Tensor, Tensor, Tensor)"}};
      },
      "attention",
      {"LSE"},
  };
}

}  // namespace evotune
