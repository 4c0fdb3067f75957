// The exported op's argument checks (the header `export --torch` writes beside its binding), without PyTorch:
// dtype, device, rank, one shape, contiguity, one device; and the files --torch writes for an attention
// space.
#include "export/torch_op_checks.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "export/torch_export.hpp"

namespace evotune {
namespace {

using evotune_op::TensorView;

TensorView tensor(const std::string& name, std::vector<std::int64_t> sizes = {2, 4, 128, 64},
                  const std::string& dtype = "float16", const std::string& device = "cuda:0") {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return {name, dtype, device, sizes, strides};
}

std::string check(const std::vector<TensorView>& tensors, bool need_cuda = true) {
  return evotune_op::check_attention_inputs("evotune::attn", "float16", tensors, need_cuda);
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

TEST(TorchOpChecks, ShapesMustBeFourDimensionalAndEqual) {
  EXPECT_EQ(
      check({tensor("q", {8, 128, 64}), tensor("k"), tensor("v")}),
      "evotune::attn: q must have 4 dimensions [batch, heads, sequence, head_dim], got shape [8, 128, 64]");
  EXPECT_EQ(
      check({tensor("q"), tensor("k", {2, 4, 256, 64}), tensor("v")}),
      "evotune::attn: k has shape [2, 4, 256, 64] but q has [2, 4, 128, 64] (the op takes q, k and v of "
      "one shape)");
}

TEST(TorchExport, TheWrittenChecksAreThisHeader) {
  const std::string text = torch_op_checks_text();
  EXPECT_NE(text.find("inline std::string check_attention_inputs("), std::string::npos);
  EXPECT_NE(text.find("#ifdef EVOTUNE_CHECKS_C_API"), std::string::npos);
}

TEST(TorchExport, TheOpsFilesNameTheSpaceAndItsArch) {
  const auto space = SearchSpace::load("search_spaces/flash_attn_fwd_wgmma.json");
  const auto files = torch_op_files(space, "// dispatcher\n", "sm_90");
  for (const char* name : {"flash_attn_fwd_wgmma_dispatch.cu", "flash_attn_fwd_wgmma_checks.h", "binding.cpp",
                           "load.py", "build_so.sh", "README.md"})
    EXPECT_EQ(files.count(name), 1u) << name;
  const std::string& binding = files.at("binding.cpp");
  EXPECT_NE(
      binding.find("m.def(\"flash_attn_fwd_wgmma(Tensor q, Tensor k, Tensor v, bool is_causal=False) -> "
                   "Tensor\")"),
      std::string::npos);
  EXPECT_NE(
      binding.find("flash_attn_fwd_wgmma_pick(q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), "
                   "q.size(3), is_causal ? 1 : 0, nullptr)"),
      std::string::npos);
  EXPECT_NE(binding.find("TORCH_LIBRARY_IMPL(evotune, Meta, m)"), std::string::npos);
  // An empty problem (S = 0) returns an empty output before any variant is picked or launched, both ways.
  const auto picks = binding.find("const int picked = flash_attn_fwd_wgmma_pick(");
  EXPECT_LT(binding.find("if (q.numel() == 0) return;"), picks);
  EXPECT_LT(binding.find("if (q.numel() == 0) return at::empty_like(q);"),
            binding.find("status = flash_attn_fwd_wgmma_dispatch("));
  const std::string& load = files.at("load.py");
  EXPECT_LT(load.find("if q.numel() == 0:\n            return  #"), load.find("picked = pick("));
  EXPECT_LT(load.find("if q.numel() == 0:\n            return torch.empty_like(q)"),
            load.find("status = dispatch("));
  EXPECT_NE(files.at("load.py").find("TORCH_ARCH = \"9.0a\""), std::string::npos);
  EXPECT_NE(files.at("build_so.sh").find("-arch=sm_90a"), std::string::npos);
}

TEST(TorchExport, SpacesThatAreNotAttentionAreRefused) {
  const auto space = SearchSpace::load("tests/data/spaces/saxpy.json");
  try {
    require_attention_space(space);
    FAIL() << "saxpy was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("--torch exports attention spaces only"), std::string::npos);
  }
}

}  // namespace
}  // namespace evotune
