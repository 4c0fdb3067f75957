// The GEMM family of exported ops: torch.ops.evotune.<space>(a, b, bias=None, b_kmajor=False) over a space
// of A [M, K] and B [K, N] (or [N, K] where its B_KMAJOR size says so), with an optional bias [N], -> D [M,
// N].
#include <algorithm>

#include "export/export_parts.hpp"
#include "export/torch_family.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

std::string gemm_refusal(const SearchSpace& space) {
  return buffers_and_sizes_refusal(space, {"A", "B", "bias"}, {"D"}, {"bias"},
                                   {"M", "N", "K", "B_KMAJOR", "BIAS", "ACT"}, {"B_KMAJOR", "BIAS", "ACT"});
}

std::map<std::string, std::string> gemm_values(const SearchSpace& space,
                                               bool /*differentiable: no backward family*/) {
  const bool bias = has_size(space, "BIAS") && find_argument(space, "bias") != nullptr;
  const bool kmajor = has_size(space, "B_KMAJOR");
  // TMA moves rows whose strides are multiples of 16 bytes: a space whose every map of A or B stages
  // misaligned rows into a padded copy (BufferIf) takes any K and N (its conditions keep the TMA store of D
  // to aligned N); one that maps a or b directly needs both to be multiples of 16 bytes.
  const auto direct = [](const ArgumentDecl& argument) {
    return argument.is_tensor_map && argument.map_buffer_if.empty() &&
           (argument.map_buffer == "A" || argument.map_buffer == "B");
  };
  const bool staged = std::none_of(space.arguments().begin(), space.arguments().end(), direct);
  const std::size_t alignment =
      has_tensor_map(space) && !staged ? 16 / size_of(torch_element_type(space)) : 1;
  const bool float32 = torch_float32_outputs(space);  // D in fp32 from 16-bit inputs
  return {{"OUT_OPTIONS", float32 ? "a.options().dtype(at::kFloat)" : "a.options()"},
          {"OUT_DTYPE_PY", float32 ? ", dtype=torch.float32" : ""},
          {"OUT_TEXT", float32 ? "in fp32" : "of a's dtype"},
          {"BIAS_VARIANTS", bias ? "true" : "false"},
          {"BIAS_VARIANTS_PY", bias ? "True" : "False"},
          {"KMAJOR_VARIANTS", kmajor ? "true" : "false"},
          {"KMAJOR_VARIANTS_PY", kmajor ? "True" : "False"},
          {"ROW_ALIGNMENT", std::to_string(alignment)}};
}

}  // namespace

TorchFamily gemm_torch_family() {
  return {
      "gemm",
      "Tensor a, Tensor b, Tensor? bias=None, bool b_kmajor=False",
      kTorchGemmChecks,
      kTorchGemmCpp,
      kTorchGemmPy,
      kTorchGemmReadme,
      "    d = op(a, b)        # like torch.matmul(a, b): a [..., K], b [K, N] CUDA tensors\n"
      "    y = op(x, w, bias, b_kmajor=True)   # like F.linear(x, w, bias): w [N, K]",
      {{"A", {"a.data_ptr()", "a"}},
       {"B", {"b.data_ptr()", "b"}},
       {"bias", {"bias.has_value() ? bias->data_ptr() : nullptr", "bias"}},
       {"D", {"d.data_ptr()", "d"}}},
      {{"M", {"m", "m"}},
       {"N", {"n", "n"}},
       {"K", {"k", "k"}},
       {"B_KMAJOR", {"b_kmajor ? 1 : 0", "1 if b_kmajor else 0"}},
       {"BIAS", {"bias.has_value() ? 1 : 0", "0 if bias is None else 1"}},
       {"ACT", {"0", "0"}}},  // no activation: the op is the product (+ bias)
      {},
      {"D"},  // D may be fp32 (the _out_f32 spaces)
      gemm_refusal,
      gemm_values,
      [](const SearchSpace&, bool) {
        return std::vector<TorchOpForm>{{"", "Tensor"}};
      },
      "",
      {},
  };
}

}  // namespace evotune
