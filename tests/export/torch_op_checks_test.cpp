// The exported ops' argument checks (the headers `export --torch` writes beside its binding), without
// PyTorch: the common ones (dtype among the tuned ones and one for all, device, contiguity, one device,
// alignment) and each family's shapes (attention: rank, grouped heads and a key length of their own, and the
// backward's o, lse and grad_o; GEMM: a [..., K], b [K, N] or [N, K],
// bias [N], TMA's row alignment; decode: q [B, HQ, SQ, D] over a contiguous or paged K/V cache, int32 lengths
// and block table).
#include <gtest/gtest.h>

#include "export/torch_op_checks_attention.hpp"
#include "export/torch_op_checks_decode.hpp"
#include "export/torch_op_checks_gemm.hpp"

namespace evotune {
namespace torch_op_checks_test {

using evotune_op::TensorView;

TensorView tensor(const std::string& name, std::vector<std::int64_t> sizes = {2, 4, 128, 64},
                  const std::string& dtype = "float16", const std::string& device = "cuda:0") {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return {name, dtype, device, sizes, strides, 0x7f0000000000};
}

std::string check(const std::vector<TensorView>& tensors, bool need_cuda = true, bool grouped_heads = true,
                  bool key_length = true) {
  return evotune_op::check_attention_inputs("evotune::attn", {"float16"}, tensors, need_cuda, grouped_heads,
                                            key_length);
}

TEST(TorchOpChecks, FitInputsPass) {
  EXPECT_EQ(check({tensor("q"), tensor("k"), tensor("v")}), "");
  TensorView single_head = tensor("q", {2, 1, 128, 64});
  single_head.strides[1] = 12345;  // a dimension of size 1 may have any stride
  EXPECT_EQ(check({single_head, tensor("k", {2, 1, 128, 64}), tensor("v", {2, 1, 128, 64})}), "");
}

TEST(TorchOpChecks, Float32IsRefusedNamingTheTunedType) {
  EXPECT_EQ(check({tensor("q"), tensor("k", {2, 4, 128, 64}, "float32"), tensor("v")}),
            "evotune::attn: k must be float16 (the exported kernels were tuned for float16), got float32");
}

TEST(TorchOpChecks, CpuTensorsAreRefusedUnlessOnlyShapesAreChecked) {
  const std::vector<TensorView> cpu{tensor("q", {2, 4, 128, 64}, "float16", "cpu"),
                                    tensor("k", {2, 4, 128, 64}, "float16", "cpu"),
                                    tensor("v", {2, 4, 128, 64}, "float16", "cpu")};
  EXPECT_EQ(check(cpu), "evotune::attn: q must be a CUDA tensor, got one on cpu");
  EXPECT_EQ(check(cpu, false), "");
  EXPECT_EQ(check({tensor("q"), tensor("k", {2, 4, 128, 64}, "float16", "cuda:1"), tensor("v")}),
            "evotune::attn: k is on cuda:1 but q is on cuda:0");
}

TEST(TorchOpChecks, NonContiguousTensorsAreRefusedWithTheirStrides) {
  TensorView transposed = tensor("v", {2, 4, 128, 64});
  transposed.strides = {32768, 64, 256, 1};  // v.transpose(1, 2) of a [2, 128, 4, 64] tensor
  EXPECT_EQ(
      check({tensor("q"), tensor("k"), transposed}),
      "evotune::attn: v must be contiguous (call .contiguous()); its strides are [32768, 64, 256, 1] for "
      "shape [2, 4, 128, 64]");
}

// torch.empty(1, 8, 0, 64) has strides [512, 64, 64, 1]: PyTorch calls it contiguous, and so must the op (it
// refused S = 0 with "must be contiguous").
TEST(TorchOpChecks, AnEmptySequenceIsContiguous) {
  TensorView empty = tensor("q", {1, 8, 0, 64});
  empty.strides = {512, 64, 64, 1};
  EXPECT_EQ(check({empty, empty, empty}), "");
  TensorView no_batch = tensor("q", {0, 8, 128, 64});
  no_batch.strides = {65536, 8192, 64, 1};
  EXPECT_EQ(check({no_batch, no_batch, no_batch}), "");
}

TEST(TorchOpChecks, ShapesMustBeFourDimensional) {
  EXPECT_EQ(
      check({tensor("q", {8, 128, 64}), tensor("k"), tensor("v")}),
      "evotune::attn: q must have 4 dimensions [batch, heads, sequence, head_dim], got shape [8, 128, 64]");
}

// q [B, H, S, D] with k and v [B, HKV, SKV, D]: grouped heads (H a multiple of HKV) and a key length of
// their own pass, and so do empty problems.
TEST(TorchOpChecks, GroupedHeadsAndAKeyLengthOfTheirOwnPass) {
  const std::vector<std::int64_t> kv{2, 2, 300, 64};
  EXPECT_EQ(check({tensor("q", {2, 8, 128, 64}), tensor("k", kv), tensor("v", kv)}), "");
  EXPECT_EQ(check({tensor("q", {2, 8, 128, 64}), tensor("k", {2, 8, 1, 64}), tensor("v", {2, 8, 1, 64})}),
            "");
  EXPECT_EQ(check({tensor("q", {2, 8, 0, 64}), tensor("k", kv), tensor("v", kv)}), "");
  EXPECT_EQ(check({tensor("q", {2, 8, 7, 64}), tensor("k", {2, 2, 0, 64}), tensor("v", {2, 2, 0, 64})}), "");
  EXPECT_EQ(check({tensor("q", {2, 0, 7, 64}), tensor("k", {2, 2, 9, 64}), tensor("v", {2, 2, 9, 64})}), "");
}

TEST(TorchOpChecks, ShapesThatDoNotFitAreRefusedInOneLine) {
  const std::vector<std::int64_t> q{2, 8, 128, 64}, kv{2, 2, 300, 64};
  EXPECT_EQ(check({tensor("q", q), tensor("k", kv), tensor("v", {2, 2, 299, 64})}),
            "evotune::attn: v has shape [2, 2, 299, 64] but k has [2, 2, 300, 64] (v must have k's shape)");
  EXPECT_EQ(check({tensor("q", q), tensor("k", {1, 2, 300, 64}), tensor("v", {1, 2, 300, 64})}),
            "evotune::attn: k has batch 1 but q has 2 (q, k and v must have one batch)");
  EXPECT_EQ(check({tensor("q", q), tensor("k", {2, 2, 300, 128}), tensor("v", {2, 2, 300, 128})}),
            "evotune::attn: k has head_dim 128 but q has 64 (q, k and v must have one head_dim)");
  EXPECT_EQ(check({tensor("q", q), tensor("k", {2, 3, 300, 64}), tensor("v", {2, 3, 300, 64})}),
            "evotune::attn: q has 8 heads, not a multiple of k's 3 (grouped heads: each k and v head serves "
            "heads / kv_heads of q's) (q has shape [2, 8, 128, 64], k [2, 3, 300, 64])");
  EXPECT_EQ(check({tensor("q", q), tensor("k", {2, 0, 300, 64}), tensor("v", {2, 0, 300, 64})}),
            "evotune::attn: q has 8 heads, not a multiple of k's 0 (grouped heads: each k and v head serves "
            "heads / kv_heads of q's) (q has shape [2, 8, 128, 64], k [2, 0, 300, 64])");
}

// Spaces without the size HKV or SKV keep q, k and v of one shape, and say why.
TEST(TorchOpChecks, SpacesWithoutGroupedHeadsOrAKeyLengthTakeOneShape) {
  const std::vector<std::int64_t> q{2, 8, 128, 64};
  EXPECT_EQ(check({tensor("q", q), tensor("k", q), tensor("v", q)}, true, false, false), "");
  EXPECT_EQ(check({tensor("q", q), tensor("k", {2, 2, 128, 64}), tensor("v", {2, 2, 128, 64})}, true, false),
            "evotune::attn: k has 2 heads but q has 8, and the op's spaces have no grouped heads (no size "
            "HKV): q, k and v must have one shape");
  EXPECT_EQ(
      check({tensor("q", q), tensor("k", {2, 8, 256, 64}), tensor("v", {2, 8, 256, 64})}, true, true, false),
      "evotune::attn: k has sequence length 256 but q has 128, and the op's spaces have no key length "
      "of their own (no size SKV): q, k and v must have one shape");
}

std::string backward(const std::vector<TensorView>& tensors, bool need_cuda = true) {
  return evotune_op::check_attention_backward_inputs("evotune::attn", {"float16", "bfloat16"}, tensors,
                                                     need_cuda, true, true);
}

// The backward's q, k, v, o, lse, grad_o: o and grad_o like q, lse float32 [B, H, S], on q's device.
TEST(TorchOpChecks, TheBackwardTakesOAndGradOLikeQAndTheForwardsLse) {
  const std::vector<std::int64_t> q{2, 8, 128, 64}, kv{2, 2, 300, 64}, rows{2, 8, 128};
  auto inputs = [&](TensorView o, TensorView lse, TensorView grad_o) {
    return std::vector<TensorView>{tensor("q", q), tensor("k", kv), tensor("v", kv), o, lse, grad_o};
  };
  EXPECT_EQ(backward(inputs(tensor("o", q), tensor("lse", rows, "float32"), tensor("grad_o", q))), "");
  EXPECT_EQ(
      backward(inputs(tensor("o", q), tensor("lse", rows, "float32"), tensor("grad_o", {2, 8, 128, 32}))),
      "evotune::attn: grad_o has shape [2, 8, 128, 32] but q has [2, 8, 128, 64] (grad_o must have q's "
      "shape)");
  EXPECT_EQ(backward(inputs(tensor("o", q), tensor("lse", rows, "float32"), tensor("grad_o", q, "bfloat16"))),
            "evotune::attn: grad_o is bfloat16 but q is float16 (the op takes tensors of one dtype)");
  EXPECT_EQ(backward(inputs(tensor("o", q), tensor("lse", rows), tensor("grad_o", q))),
            "evotune::attn: lse must be float32 (the forward's row log-sum-exps), got float16");
  EXPECT_EQ(
      backward(inputs(tensor("o", q), tensor("lse", {2, 8, 300}, "float32"), tensor("grad_o", q))),
      "evotune::attn: lse has shape [2, 8, 300] but must be [2, 8, 128] ([batch, heads, sequence] of q, "
      "as the forward writes it)");
  EXPECT_EQ(backward(inputs(tensor("o", q), tensor("lse", rows, "float32", "cuda:1"), tensor("grad_o", q))),
            "evotune::attn: lse is on cuda:1 but q is on cuda:0");
  EXPECT_EQ(
      backward(inputs(tensor("o", q), tensor("lse", rows, "float32", "cuda:1"), tensor("grad_o", q)), false),
      "");
  EXPECT_EQ(backward({tensor("q", q), tensor("k", kv), tensor("v", {2, 2, 1, 64}), tensor("o", q),
                      tensor("lse", rows, "float32"), tensor("grad_o", q)}),
            "evotune::attn: v has shape [2, 2, 1, 64] but k has [2, 2, 300, 64] (v must have k's shape)");
}

// One op for both dtypes: either is taken, the three tensors of one, and anything else names both.
TEST(TorchOpChecks, TwoTunedDtypesTakeEitherButNotAMix) {
  auto both = [](const std::vector<TensorView>& tensors) {
    return evotune_op::check_attention_inputs("evotune::attn", {"float16", "bfloat16"}, tensors, true, true,
                                              true);
  };
  const std::vector<std::int64_t> shape{2, 4, 128, 64};
  EXPECT_EQ(both({tensor("q"), tensor("k"), tensor("v")}), "");
  EXPECT_EQ(
      both({tensor("q", shape, "bfloat16"), tensor("k", shape, "bfloat16"), tensor("v", shape, "bfloat16")}),
      "");
  EXPECT_EQ(both({tensor("q", shape, "bfloat16"), tensor("k"), tensor("v")}),
            "evotune::attn: k is float16 but q is bfloat16 (the op takes tensors of one dtype)");
  EXPECT_EQ(both({tensor("q", shape, "float32"), tensor("k"), tensor("v")}),
            "evotune::attn: q must be float16 or bfloat16 (the exported kernels were tuned for float16 or "
            "bfloat16), got float32");
}

// A view at an offset (x[1:] of rows of 100 halves) breaks the kernels' 16-byte loads: refused on the GPU
// path, not on the shapes-only one (fake tensors have no address), and an empty tensor's null address passes.
TEST(TorchOpChecks, DataOffTheSixteenByteBoundaryIsRefused) {
  TensorView offset = tensor("k");
  offset.address += 200;
  EXPECT_EQ(
      check({tensor("q"), offset, tensor("v")}),
      "evotune::attn: k's data must start on a 16-byte boundary, but it starts 8 bytes past one (a view "
      "at an offset: call .clone())");
  EXPECT_EQ(check({tensor("q"), offset, tensor("v")}, false), "");
  TensorView empty = tensor("q", {1, 8, 0, 64});
  empty.address = 0;
  EXPECT_EQ(check({empty, empty, empty}), "");
}

std::string gemm(const std::vector<TensorView>& tensors, bool b_kmajor = false, bool need_cuda = true) {
  return evotune_op::check_gemm_inputs("evotune::mm", {"float16", "bfloat16"}, tensors, b_kmajor, 8,
                                       need_cuda);
}

TEST(TorchOpChecksGemm, BothLayoutsOfBAndABiasPass) {
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {512, 128})}), "");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {128, 512}), tensor("bias", {128})}, true), "");
  // a's leading dimensions are its rows, as F.linear takes x [batch, sequence, features].
  EXPECT_EQ(gemm({tensor("a", {4, 77, 512}), tensor("b", {128, 512})}, true), "");
  const auto sizes = evotune_op::gemm_sizes(tensor("a", {4, 77, 512}), tensor("b", {128, 512}), true);
  EXPECT_EQ(sizes.m, 308);
  EXPECT_EQ(sizes.n, 128);
  EXPECT_EQ(sizes.k, 512);
}

TEST(TorchOpChecksGemm, ShapesThatDoNotMultiplyAreRefusedNamingTheLayout) {
  EXPECT_EQ(
      gemm({tensor("a", {512}), tensor("b", {512, 128})}),
      "evotune::mm: a must have 2 or more dimensions [..., K] (its leading ones are the rows), got shape "
      "[512]");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {2, 512, 128})}),
            "evotune::mm: b must have 2 dimensions, [K, N], got shape [2, 512, 128]");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {128, 512})}),
            "evotune::mm: a has K = 512 (its last dimension) but b, [K, N], has shape [128, 512]");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {512, 128})}, true),
            "evotune::mm: a has K = 512 (its last dimension) but b, [N, K] (b_kmajor=True), has shape [512, "
            "128]");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {512, 128}), tensor("bias", {256})}),
            "evotune::mm: bias must have shape [N] = [128], got [256]");
}

TEST(TorchOpChecksGemm, RowsTmaCannotMoveAreRefused) {
  EXPECT_EQ(
      gemm({tensor("a", {256, 100}), tensor("b", {100, 128})}),
      "evotune::mm: K = 100 must be a multiple of 8: the kernels load the rows of a and b with TMA, which "
      "needs row strides of a multiple of 16 bytes");
  EXPECT_EQ(
      gemm({tensor("a", {256, 512}), tensor("b", {512, 100})}),
      "evotune::mm: N = 100 must be a multiple of 8: the kernels move the rows of b and of the output with "
      "TMA, which needs row strides of a multiple of 16 bytes");
  // Odd M is any number of rows.
  EXPECT_EQ(gemm({tensor("a", {77, 512}), tensor("b", {512, 128})}), "");
}

TEST(TorchOpChecksGemm, EmptyProductsPassTheChecks) {
  EXPECT_EQ(gemm({tensor("a", {0, 512}), tensor("b", {512, 128})}), "");
  EXPECT_EQ(gemm({tensor("a", {256, 0}), tensor("b", {0, 128}), tensor("bias", {128})}), "");
}

TEST(TorchOpChecksGemm, MixedDtypesAndDevicesAreRefused) {
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {512, 128}, "bfloat16")}),
            "evotune::mm: b is bfloat16 but a is float16 (the op takes tensors of one dtype)");
  EXPECT_EQ(gemm({tensor("a", {256, 512}), tensor("b", {512, 128}), tensor("bias", {128}, "float16", "cpu")}),
            "evotune::mm: bias must be a CUDA tensor, got one on cpu");
}

std::string decode(const std::vector<TensorView>& tensors, bool need_cuda = true) {
  return evotune_op::check_decode_inputs("evotune::decode", {"float16", "bfloat16"}, tensors, need_cuda);
}

// q [B=4, HQ=32, SQ=1, D=128] over a contiguous cache [4, 4096, 8, 128] or 4 sequences' pages of 64 keys.
std::vector<TensorView> contiguous_decode() {
  return {tensor("q", {4, 32, 1, 128}), tensor("k_cache", {4, 4096, 8, 128}),
          tensor("v_cache", {4, 4096, 8, 128}), tensor("cache_seqlens", {4}, "int32")};
}

std::vector<TensorView> paged_decode() {
  return {tensor("q", {4, 32, 2, 128}), tensor("k_cache", {300, 64, 8, 128}),
          tensor("v_cache", {300, 64, 8, 128}), tensor("cache_seqlens", {4}, "int32"),
          tensor("block_table", {4, 64}, "int32")};
}

TEST(TorchOpChecksDecode, ContiguousAndPagedCachesPassWithTheirSizes) {
  EXPECT_EQ(decode(contiguous_decode()), "");
  EXPECT_EQ(decode(paged_decode()), "");
  const auto contiguous = evotune_op::decode_sizes(contiguous_decode());
  EXPECT_EQ((std::vector<std::int64_t>{contiguous.b, contiguous.hkv, contiguous.g, contiguous.sq,
                                       contiguous.skv, contiguous.d, contiguous.page}),
            (std::vector<std::int64_t>{4, 8, 4, 1, 4096, 128, 0}));
  // Paged: the capacity a sequence is its pages times the page (the pool may hold more pages than B's).
  const auto paged = evotune_op::decode_sizes(paged_decode());
  EXPECT_EQ(
      (std::vector<std::int64_t>{paged.b, paged.hkv, paged.g, paged.sq, paged.skv, paged.d, paged.page}),
      (std::vector<std::int64_t>{4, 8, 4, 2, 4096, 128, 64}));
  // Shapes only (fake tensors): CPU-less devices pass.
  auto fake = contiguous_decode();
  for (auto& t : fake) t.device = "meta";
  EXPECT_EQ(decode(fake, false), "");
}

TEST(TorchOpChecksDecode, ShapesThatDoNotFitTheCacheAreRefused) {
  auto tensors = contiguous_decode();
  tensors[0] = tensor("q", {4, 30, 1, 128});
  EXPECT_EQ(decode(tensors),
            "evotune::decode: q's 30 heads must be a multiple of k_cache's 8 (grouped heads: each K/V head "
            "serves HQ "
            "/ HKV query heads)");
  tensors = contiguous_decode();
  tensors[2] = tensor("v_cache", {4, 2048, 8, 128});
  EXPECT_EQ(decode(tensors),
            "evotune::decode: v_cache must have k_cache's shape [4, 4096, 8, 128], got [4, 2048, 8, 128]");
  tensors = contiguous_decode();
  tensors[0] = tensor("q", {4, 32, 1, 64});
  EXPECT_EQ(
      decode(tensors),
      "evotune::decode: k_cache has D = 128 (its last dimension) but q, [B, HQ, SQ, D], has shape [4, 32, 1, "
      "64]");
  tensors = contiguous_decode();
  tensors[0] = tensor("q", {2, 32, 1, 128});
  EXPECT_EQ(decode(tensors), "evotune::decode: k_cache, [B, SKV, HKV, D], has 4 sequences but q has B = 2");
  tensors = contiguous_decode();
  tensors[1] = tensor("k_cache", {4, 4096, 1024});
  tensors[2] = tensor("v_cache", {4, 4096, 1024});
  EXPECT_EQ(decode(tensors),
            "evotune::decode: k_cache must have 4 dimensions, [B, SKV, HKV, D], got shape [4, 4096, 1024]");
}

TEST(TorchOpChecksDecode, LengthsAndBlockTablesAreInt32OfTheirShape) {
  auto tensors = contiguous_decode();
  tensors[3] = tensor("cache_seqlens", {4}, "int64");
  EXPECT_EQ(decode(tensors), "evotune::decode: cache_seqlens must be int32, got int64");
  tensors[3] = tensor("cache_seqlens", {3}, "int32");
  EXPECT_EQ(decode(tensors), "evotune::decode: cache_seqlens must have shape [B] = [4], got [3]");
  tensors[3] = tensor("cache_seqlens", {4}, "int32", "cuda:1");
  EXPECT_EQ(decode(tensors), "evotune::decode: cache_seqlens is on cuda:1 but q is on cuda:0");
  auto paged = paged_decode();
  paged[4] = tensor("block_table", {256}, "int32");
  EXPECT_EQ(decode(paged),
            "evotune::decode: block_table must have shape [B, pages a sequence] = [4, ...], got [256]");
  paged[4] = tensor("block_table", {2, 64}, "int32");
  EXPECT_EQ(decode(paged),
            "evotune::decode: block_table must have shape [B, pages a sequence] = [4, ...], got [2, 64]");
  paged[4] = tensor("block_table", {4, 64}, "int32");
  paged[4].strides = {1, 4};  // a transposed view
  EXPECT_EQ(
      decode(paged),
      "evotune::decode: block_table must be contiguous (call .contiguous()); its strides are [1, 4] for "
      "shape [4, 64]");
  // The cache is checked as every op's floating-point inputs are.
  paged = paged_decode();
  paged[1] = tensor("k_cache", {300, 64, 8, 128}, "float32");
  EXPECT_EQ(
      decode(paged),
      "evotune::decode: k_cache must be float16 or bfloat16 (the exported kernels were tuned for float16 or "
      "bfloat16), got float32");
}

}  // namespace torch_op_checks_test
}  // namespace evotune
