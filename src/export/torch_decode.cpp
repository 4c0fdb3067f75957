// The decode family of exported ops: torch.ops.evotune.<space>(q, k_cache, v_cache, cache_seqlens,
// block_table=None, is_causal=False) over a space of q, a K/V cache (contiguous or paged) and its lengths ->
// o, as flash_attn_with_kvcache takes them (q heads first, [B, HQ, SQ, D]).
#include "export/torch_family.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

std::string decode_refusal(const SearchSpace& space) {
  return buffers_and_sizes_refusal(space, {"q", "k_cache", "v_cache", "cache_seqlens", "block_table"}, {"o"},
                                   {}, {"B", "HKV", "G", "SQ", "SKV", "D", "CAUSAL", "PAGED", "PAGE"},
                                   {"CAUSAL", "PAGED", "PAGE"});
}

std::map<std::string, std::string> decode_values(const SearchSpace& space,
                                                 bool /*differentiable: no backward family*/) {
  const bool causal = has_size(space, "CAUSAL");
  const bool paged = has_size(space, "PAGED") && has_size(space, "PAGE");
  std::int64_t page_default = 0;
  for (const auto& size : space.sizes())
    if (size.name == "PAGE") page_default = size.default_value;
  return {{"CAUSAL_VARIANTS", causal ? "true" : "false"},
          {"CAUSAL_VARIANTS_PY", causal ? "True" : "False"},
          {"PAGED_VARIANTS", paged ? "true" : "false"},
          {"PAGED_VARIANTS_PY", paged ? "True" : "False"},
          {"PAGE_WHEN_CONTIGUOUS", std::to_string(page_default)}};
}

}  // namespace

TorchFamily decode_torch_family() {
  return {
      "decode",
      "Tensor q, Tensor k_cache, Tensor v_cache, Tensor cache_seqlens, Tensor? block_table=None, "
      "bool is_causal=False",
      kTorchDecodeChecks,
      kTorchDecodeCpp,
      kTorchDecodePy,
      kTorchDecodeReadme,
      "    o = op(q, k_cache, v_cache, cache_seqlens)   # q [B, HQ, SQ, D]; cache [B, SKV, HKV, D] CUDA "
      "tensors\n"
      "    o = op(q, k_pages, v_pages, cache_seqlens, block_table)   # paged: [pages, PAGE, HKV, D]",
      {{"q", {"q.data_ptr()", "q"}},
       {"k_cache", {"k_cache.data_ptr()", "k_cache"}},
       {"v_cache", {"v_cache.data_ptr()", "v_cache"}},
       {"cache_seqlens", {"cache_seqlens.data_ptr()", "cache_seqlens"}},
       {"block_table", {"block_table.has_value() ? block_table->data_ptr() : nullptr", "block_table"}},
       {"o", {"o.data_ptr()", "o"}}},
      {{"B", {"ds.b", "b"}},
       {"HKV", {"ds.hkv", "hkv"}},
       {"G", {"ds.g", "g"}},
       {"SQ", {"ds.sq", "sq"}},
       {"SKV", {"ds.skv", "skv"}},
       {"D", {"ds.d", "d"}},
       {"CAUSAL", {"is_causal ? 1 : 0", "1 if is_causal else 0"}},
       {"PAGED", {"ds.page > 0 ? 1 : 0", "1 if page else 0"}},
       {"PAGE", {"ds.page > 0 ? ds.page : kPageWhenContiguous", "page or PAGE_WHEN_CONTIGUOUS"}}},
      {},
      {},
      decode_refusal,
      decode_values,
      [](const SearchSpace&, bool) {
        return std::vector<TorchOpForm>{{"", "Tensor"}};
      },
      "",
      {},
  };
}

}  // namespace evotune
