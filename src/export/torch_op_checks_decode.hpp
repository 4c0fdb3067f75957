// The decode family's argument checks (evotune export --torch): queries q [B, HQ, SQ, D] attending to a K/V
// cache as flash_attn_with_kvcache takes it, contiguous [B, SKV, HKV, D] or paged [pages, PAGE, HKV, D] with
// a block table [B, pages a sequence], and the cache lengths cache_seqlens [B] (int32), on top of the checks
// every op makes (torch_op_checks.hpp).
#pragma once

#include "torch_op_checks.hpp"

namespace evotune_op {

// The problem's sizes as the decode spaces name them (SKV: the cache's capacity a sequence; PAGE: 0 when the
// cache is contiguous).
struct DecodeSizes {
  std::int64_t b, hkv, g, sq, skv, d, page;
};

// tensors: q, k_cache, v_cache, cache_seqlens and, where paged, block_table (checked first).
inline DecodeSizes decode_sizes(const std::vector<TensorView>& tensors) {
  const TensorView& q = tensors[0];
  const TensorView& k = tensors[1];
  const bool paged = tensors.size() > 4;
  const std::int64_t hkv = k.sizes[2];
  return {q.sizes[0],
          hkv,
          hkv > 0 ? q.sizes[1] / hkv : 0,
          q.sizes[2],
          paged ? tensors[4].sizes[1] * k.sizes[1] : k.sizes[1],
          q.sizes[3],
          paged ? k.sizes[1] : 0};
}

// `index` (cache_seqlens, block_table): int32, contiguous, on q's device, of `rank` dimensions.
inline std::string check_index_tensor(const std::string& op, const TensorView& index, const TensorView& q,
                                      std::size_t rank, const std::string& layout, bool need_cuda) {
  if (index.dtype != "int32") return op + ": " + index.name + " must be int32, got " + index.dtype;
  if (index.sizes.size() != rank)
    return op + ": " + index.name + " must have shape " + layout + ", got " + join(index.sizes);
  if (!contiguous(index))
    return op + ": " + index.name + " must be contiguous (call .contiguous()); its strides are " +
           join(index.strides) + " for shape " + join(index.sizes);
  if (need_cuda && index.device != q.device)
    return op + ": " + index.name + " is on " + index.device + " but q is on " + q.device;
  return "";
}

// "" when q, k_cache, v_cache, cache_seqlens (and block_table, a fifth tensor) suit the op `op` (kernels
// tuned for `dtypes`); else the message. The values of cache_seqlens (<= SKV) and of the block table (pages
// of k_cache) are the caller's to keep: reading them would wait for the GPU.
inline std::string check_decode_inputs(const std::string& op, const std::vector<std::string>& dtypes,
                                       const std::vector<TensorView>& tensors, bool need_cuda) {
  const std::string common = check_tensors(op, dtypes, {tensors[0], tensors[1], tensors[2]}, need_cuda);
  if (!common.empty()) return common;
  const TensorView& q = tensors[0];
  const TensorView& k = tensors[1];
  const TensorView& v = tensors[2];
  const bool paged = tensors.size() > 4;
  const std::string cache =
      paged ? "[pages, PAGE, HKV, D] (paged: a block table was given)" : "[B, SKV, HKV, D]";
  if (q.sizes.size() != 4)
    return op + ": q must have 4 dimensions, [B, HQ, SQ, D], got shape " + join(q.sizes);
  if (k.sizes.size() != 4)
    return op + ": k_cache must have 4 dimensions, " + cache + ", got shape " + join(k.sizes);
  if (v.sizes != k.sizes)
    return op + ": v_cache must have k_cache's shape " + join(k.sizes) + ", got " + join(v.sizes);
  if (k.sizes[3] != q.sizes[3])
    return op + ": k_cache has D = " + std::to_string(k.sizes[3]) +
           " (its last dimension) but q, [B, HQ, SQ, D], has shape " + join(q.sizes);
  if (k.sizes[2] < 1 || q.sizes[1] % k.sizes[2] != 0)
    return op + ": q's " + std::to_string(q.sizes[1]) + " heads must be a multiple of k_cache's " +
           std::to_string(k.sizes[2]) + " (grouped heads: each K/V head serves HQ / HKV query heads)";
  if (!paged && k.sizes[0] != q.sizes[0])
    return op + ": k_cache, " + cache + ", has " + std::to_string(k.sizes[0]) +
           " sequences but q has B = " + std::to_string(q.sizes[0]);
  const std::string lengths =
      check_index_tensor(op, tensors[3], q, 1, "[B] = [" + std::to_string(q.sizes[0]) + "]", need_cuda);
  if (!lengths.empty()) return lengths;
  if (tensors[3].sizes[0] != q.sizes[0])
    return op + ": cache_seqlens must have shape [B] = [" + std::to_string(q.sizes[0]) + "], got " +
           join(tensors[3].sizes);
  if (paged) {
    const TensorView& table = tensors[4];
    const std::string layout = "[B, pages a sequence] = [" + std::to_string(q.sizes[0]) + ", ...]";
    const std::string problem = check_index_tensor(op, table, q, 2, layout, need_cuda);
    if (!problem.empty()) return problem;
    if (table.sizes[0] != q.sizes[0])
      return op + ": block_table must have shape " + layout + ", got " + join(table.sizes);
  }
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
// For ctypes (the arrays as evotune_op::c_tensors reads them; dtypes: the tuned ones, comma-separated).
extern "C" int evotune_check_decode(const char* op, const char* dtypes, int count, const char* const* names,
                                    const char* const* tensor_dtypes, const char* const* devices,
                                    const int* dims, const long long* sizes, const long long* strides,
                                    const unsigned long long* addresses, int need_cuda, char* message,
                                    int capacity) {
  const auto tensors =
      evotune_op::c_tensors(count, names, tensor_dtypes, devices, dims, sizes, strides, addresses);
  return evotune_op::c_message(
      evotune_op::check_decode_inputs(op, evotune_op::c_dtypes(dtypes), tensors, need_cuda != 0), message,
      capacity);
}
#endif
