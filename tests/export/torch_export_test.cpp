// The files `export --torch` writes, without PyTorch: for an attention space, for the GEMM space, for the
// decode spaces, for one op over an fp16 space and its bf16 twin (the dtype dispatch) and for a
// differentiable attention op (its backward spaces beside); what cannot make one op is refused in one line;
// the checks' C entry points that the ctypes path calls.
#define EVOTUNE_CHECKS_C_API
#include "export/torch_export.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "export/torch_op_checks_attention.hpp"
#include "export/torch_op_checks_decode.hpp"
#include "export/torch_op_checks_gemm.hpp"

namespace evotune {
namespace torch_export_test {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::map<std::string, std::string> files_of(const std::vector<std::string>& paths, const std::string& name) {
  std::vector<SearchSpace> spaces;
  for (const auto& path : paths) spaces.push_back(SearchSpace::load(path));
  std::vector<TorchOpSpace> inputs;
  for (const auto& space : spaces) inputs.push_back({&space, "// dispatcher of " + space.name() + "\n"});
  return torch_op_files(inputs, name, "sm_90");
}

std::string refusal(const std::vector<std::string>& paths) {
  std::vector<SearchSpace> spaces;
  for (const auto& path : paths) spaces.push_back(SearchSpace::load(path));
  std::vector<const SearchSpace*> pointers;
  for (const auto& space : spaces) pointers.push_back(&space);
  try {
    require_torch_spaces(pointers);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// Every file is filled in: no {{KEY}} left.
void expect_rendered(const std::map<std::string, std::string>& files) {
  for (const auto& [name, text] : files) {
    EXPECT_FALSE(has(text, "{{")) << name;
  }
}

// The loader parses as Python (when python3 is there).
void expect_python(const std::string& load) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) return;
  const auto file =
      std::filesystem::temp_directory_path() / ("evotune_load_" + std::to_string(::getpid()) + ".py");
  std::ofstream(file) << load;
  EXPECT_EQ(
      std::system(
          ("python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read())\" " + file.string()).c_str()),
      0)
      << load;
  std::filesystem::remove(file);
}

TEST(TorchExport, TheWrittenChecksAreTheHeaders) {
  EXPECT_TRUE(has(torch_op_checks_text(), "inline std::string check_tensors("));
  const auto files = files_of({"search_spaces/flash_attn_fwd_wgmma.json"}, "flash_attn_fwd_wgmma");
  EXPECT_TRUE(has(files.at("torch_op_checks_attention.hpp"), "inline std::string check_attention_inputs("));
  EXPECT_TRUE(has(files.at("torch_op_checks_attention.hpp"), "#ifdef EVOTUNE_CHECKS_C_API"));
  EXPECT_EQ(files.at("torch_op_checks.hpp"), torch_op_checks_text());
}

TEST(TorchExport, AnAttentionSpaceGivesTheAttentionOp) {
  const auto files = files_of({"search_spaces/flash_attn_fwd_wgmma.json"}, "flash_attn_fwd_wgmma");
  for (const char* name :
       {"flash_attn_fwd_wgmma_dispatch.cu", "torch_op_checks.hpp", "torch_op_checks_attention.hpp",
        "binding.cpp", "load.py", "build_so.sh", "README.md"})
    EXPECT_EQ(files.count(name), 1u) << name;
  EXPECT_EQ(files.size(), 7u);
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(has(binding,
                  "m.def(\"flash_attn_fwd_wgmma(Tensor q, Tensor k, Tensor v, bool is_causal=False) -> "
                  "Tensor\")"));
  EXPECT_TRUE(has(binding, "#include \"torch_op_checks_attention.hpp\""));
  EXPECT_TRUE(has(binding,
                  "const long long sizes[] = {q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), "
                  "q.size(3), is_causal ? 1 : 0};"));
  // The buffers in the space's order: Q, K, V, O, then the rows' log-sum-exps (fp32 whatever the dtype).
  EXPECT_TRUE(has(binding,
                  "void* const buffers[] = {q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), "
                  "lse.data_ptr()};"));
  EXPECT_TRUE(has(binding, "constexpr bool kLse = true;"));
  EXPECT_TRUE(
      has(binding, "lse = at::empty({q.size(0), q.size(1), q.size(2)}, q.options().dtype(at::kFloat));"));
  EXPECT_TRUE(has(binding, "const std::vector<std::string> kDtypes = {\"float16\"};"));
  EXPECT_TRUE(has(binding, "{at::kHalf, flash_attn_fwd_wgmma_pick_at, "));
  EXPECT_TRUE(
      has(binding,
          "extern \"C\" int flash_attn_fwd_wgmma_dispatch(const half*, const half*, const half*, half*, "
          "float*, long long, "));
  EXPECT_TRUE(has(binding,
                  "return flash_attn_fwd_wgmma_dispatch(static_cast<const half*>(b[0]), "
                  "static_cast<const half*>(b[1]), static_cast<const half*>(b[2]), "
                  "static_cast<half*>(b[3]), static_cast<float*>(b[4]), s[0], s[1], s[2], s[3], s[4], s[5], "
                  "s[6], workspace, bytes, stream);"));
  EXPECT_TRUE(has(binding, "TORCH_CHECK(true || !is_causal"));
  // Two ops: the one the export names returns o; <name>_with_lse returns (o, lse), for a backward pass.
  EXPECT_TRUE(
      has(binding,
          "  m.def(\"flash_attn_fwd_wgmma_with_lse(Tensor q, Tensor k, Tensor v, bool is_causal=False) "
          "-> (Tensor, Tensor)\");\n"));
  for (const char* key : {"CUDA", "Meta", "CPU"}) {
    const std::string impl = std::string("TORCH_LIBRARY_IMPL(evotune, ") + key + ", m) {\n";
    const std::string function = key == std::string("CUDA")   ? "op_cuda"
                                 : key == std::string("Meta") ? "op_meta"
                                                              : "op_cpu";
    EXPECT_TRUE(has(binding, impl + "  m.impl(\"flash_attn_fwd_wgmma\", &" + function + ");\n  m.impl(\"" +
                                 "flash_attn_fwd_wgmma_with_lse\", &" + function + "_with_lse);\n}\n"))
        << key;
  }
  EXPECT_TRUE(has(binding, "return std::get<0>(op_cuda_with_lse(q, k, v, is_causal));"));
  // An empty problem (no batch, heads, queries or keys) returns before any variant is picked or launched,
  // both ways: o of zeros and lse -inf.
  EXPECT_TRUE(has(binding, "return q.size(0) == 0 || q.size(1) == 0 || q.size(2) == 0 || k.size(2) == 0;"));
  EXPECT_LT(binding.find("if (empty_problem(q, k)) return;"),
            binding.find("require_variant(q.scalar_type()"));
  ASSERT_NE(binding.find("launch(q, buffers, sizes);"), std::string::npos);
  EXPECT_LT(binding.find("if (empty_problem(q, k)) {"), binding.find("launch(q, buffers, sizes);"));
  EXPECT_TRUE(has(binding, "if (lse.defined()) lse.fill_(-std::numeric_limits<float>::infinity());"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load, "return q.shape[0] == 0 or q.shape[1] == 0 or q.shape[2] == 0 or k.shape[2] == 0"));
  EXPECT_LT(load.find("if empty_problem(q, k):\n            return  #"),
            load.find("prebuilt.require_variant("));
  const std::size_t launch = load.find(
      "prebuilt.launch(q, [q, k, v, o, lse], [q.shape[0], q.shape[1], k.shape[1], q.shape[2], k.shape[2], "
      "q.shape[3], 1 if is_causal else 0])");
  ASSERT_NE(launch, std::string::npos);
  EXPECT_LT(load.find("if empty_problem(q, k):  # no keys"), launch);
  EXPECT_TRUE(has(load, "lse.fill_(float(\"-inf\"))"));
  EXPECT_TRUE(has(load, "    lse_output = True\n"));
  EXPECT_TRUE(has(load, "@torch.library.custom_op(op + \"_with_lse\", mutates_args=())"));
  EXPECT_TRUE(has(load, "-> Tuple[torch.Tensor, torch.Tensor]:"));
  EXPECT_TRUE(has(load, "q.new_empty(q.shape[:3], dtype=torch.float32)"));
  EXPECT_TRUE(has(files.at("README.md"),
                  "`torch.ops.evotune.flash_attn_fwd_wgmma_with_lse(q, k, v, "
                  "is_causal=False)` returns `(o, lse)`"));
  EXPECT_TRUE(has(load, "SPACES = {torch.float16: \"flash_attn_fwd_wgmma\"}"));
  EXPECT_TRUE(has(load, "TORCH_ARCH = \"9.0a\""));
  EXPECT_TRUE(has(load, "self.checks = lib.evotune_check_attention"));
  expect_python(load);
  EXPECT_TRUE(has(files.at("build_so.sh"), "-arch=sm_90a flash_attn_fwd_wgmma_dispatch.cu checks_c_api.cpp"));
  EXPECT_TRUE(has(files.at("build_so.sh"), "#include \"torch_op_checks_attention.hpp\""));
}

// An attention space that writes O alone (the mma space): the one op, no (o, lse) op, no lse buffer.
TEST(TorchExport, AnAttentionSpaceWithoutLseGivesTheOneOp) {
  const auto files = files_of({"search_spaces/flash_attn_fwd_mma.json"}, "attn_mma");
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(has(binding,
                  "m.def(\"attn_mma(Tensor q, Tensor k, Tensor v, bool is_causal=False) -> Tensor\");\n}\n"));
  EXPECT_FALSE(has(binding, "\"attn_mma_with_lse"));
  EXPECT_TRUE(has(binding, "TORCH_LIBRARY_IMPL(evotune, CUDA, m) {\n  m.impl(\"attn_mma\", &op_cuda);\n}\n"));
  EXPECT_TRUE(has(binding, "constexpr bool kLse = false;"));
  EXPECT_TRUE(
      has(binding, "void* const buffers[] = {q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr()};"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load, "    lse_output = False\n"));
  EXPECT_TRUE(has(load, "prebuilt.launch(q, [q, k, v, o], "));
  expect_python(load);
  EXPECT_FALSE(has(files.at("README.md"), "_with_lse"));
}

// One op over the fp16 space and its bf16 twin: both dispatchers, each dtype to its own, the dtypes listed
// for the checks.
TEST(TorchExport, AnFp16SpaceAndItsBf16TwinGiveOneOpThatDispatchesOnTheDtype) {
  const auto files =
      files_of({"search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/flash_attn_fwd_wgmma_bf16.json"},
               "attention");
  EXPECT_EQ(files.count("flash_attn_fwd_wgmma_dispatch.cu"), 1u);
  EXPECT_EQ(files.at("flash_attn_fwd_wgmma_bf16_dispatch.cu"),
            "// dispatcher of flash_attn_fwd_wgmma_bf16\n");
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(
      has(binding, "m.def(\"attention(Tensor q, Tensor k, Tensor v, bool is_causal=False) -> Tensor\")"));
  EXPECT_TRUE(has(binding, "const char* const kOp = \"evotune::attention\";"));
  EXPECT_TRUE(has(binding, "const std::vector<std::string> kDtypes = {\"float16\", \"bfloat16\"};"));
  EXPECT_TRUE(has(binding, "{at::kHalf, flash_attn_fwd_wgmma_pick_at, "));
  EXPECT_TRUE(
      has(binding,
          "{at::kBFloat16, flash_attn_fwd_wgmma_bf16_pick_at, flash_attn_fwd_wgmma_bf16_workspace_at, "
          "flash_attn_fwd_wgmma_bf16_dispatch_at, flash_attn_fwd_wgmma_bf16_error_string},"));
  EXPECT_TRUE(has(binding, "extern \"C\" int flash_attn_fwd_wgmma_bf16_dispatch(const __nv_bfloat16*, "));
  EXPECT_TRUE(has(binding, "static_cast<const __nv_bfloat16*>(b[0])"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load,
                  "SPACES = {torch.float16: \"flash_attn_fwd_wgmma\", torch.bfloat16: "
                  "\"flash_attn_fwd_wgmma_bf16\"}"));
  EXPECT_TRUE(has(load, "NAME = \"attention\""));
  expect_python(load);
  EXPECT_TRUE(
      has(files.at("build_so.sh"),
          "flash_attn_fwd_wgmma_dispatch.cu flash_attn_fwd_wgmma_bf16_dispatch.cu checks_c_api.cpp -o "
          "libattention.so"));
  EXPECT_TRUE(has(files.at("README.md"), "one for each dtype it takes (float16, bfloat16)"));
}

TEST(TorchExport, TheGemmSpaceGivesTheGemmOpWithBiasAndBothLayouts) {
  const auto files =
      files_of({"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"}, "gemm_wgmma");
  for (const char* name : {"gemm_wgmma_dispatch.cu", "gemm_wgmma_bf16_dispatch.cu", "torch_op_checks.hpp",
                           "torch_op_checks_gemm.hpp", "binding.cpp", "load.py", "build_so.sh", "README.md"})
    EXPECT_EQ(files.count(name), 1u) << name;
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(
      has(binding,
          "m.def(\"gemm_wgmma(Tensor a, Tensor b, Tensor? bias=None, bool b_kmajor=False) -> Tensor\")"));
  EXPECT_TRUE(has(binding, "#include \"torch_op_checks_gemm.hpp\""));
  // The sizes M, N, K, B_KMAJOR, BIAS, ACT in the space's order; the buffers A, B, bias, D (scratch and
  // tensor maps are the dispatcher's).
  EXPECT_TRUE(
      has(binding, "const long long sizes[] = {m, n, k, b_kmajor ? 1 : 0, bias.has_value() ? 1 : 0, 0};"));
  EXPECT_TRUE(has(binding,
                  "void* const buffers[] = {a.data_ptr(), b.data_ptr(), bias.has_value() ? "
                  "bias->data_ptr() : nullptr, d.data_ptr()};"));
  // The spaces stage rows TMA cannot address (BufferIf on A's and B's maps): any K and N (row alignment 1).
  EXPECT_TRUE(has(binding, "evotune_op::check_gemm_inputs(kOp, kDtypes, tensors, b_kmajor, 1, need_cuda)"));
  EXPECT_TRUE(
      has(binding, "TORCH_LIBRARY_IMPL(evotune, Meta, m) {\n  m.impl(\"gemm_wgmma\", &op_meta);\n}\n"));
  EXPECT_TRUE(has(binding, "TORCH_CHECK(true || !bias.has_value()"));
  EXPECT_TRUE(has(binding, "TORCH_CHECK(true || !b_kmajor"));
  EXPECT_TRUE(has(binding, "{at::kBFloat16, gemm_wgmma_bf16_pick_at, "));
  // Empty products are answered before a variant is picked or launched.
  EXPECT_LT(binding.find("if (gemm.m == 0 || gemm.n == 0 || gemm.k == 0) return gemm;"),
            binding.find("require_variant(a.scalar_type()"));
  EXPECT_LT(binding.find("if (gemm.k == 0) {"), binding.find("launch(a, buffers, sizes);"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load,
                  "prebuilt.launch(a, [a, b, bias, d], [m, n, k, 1 if b_kmajor else 0, 0 if bias is None "
                  "else 1, 0])"));
  EXPECT_TRUE(has(load, "prebuilt.check(tensors, need_cuda, int(b_kmajor), 1)"));
  EXPECT_TRUE(has(load, "bias: Optional[torch.Tensor] = None"));
  EXPECT_TRUE(has(load, "self.checks = lib.evotune_check_gemm"));
  expect_python(load);
  EXPECT_TRUE(has(files.at("README.md"), "like F.linear(x, weight, bias)"));
}

// The fp32-D twins make an op of their own whose output is fp32 whatever a's dtype (D float* to the
// dispatchers); an fp32-D space and one whose D is of its inputs' dtype make no one op.
TEST(TorchExport, TheFp32DSpacesGiveAnOpWithAnFp32Output) {
  const auto files =
      files_of({"search_spaces/gemm_wgmma_out_f32.json", "search_spaces/gemm_wgmma_bf16_out_f32.json"},
               "gemm_out_f32");
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(
      has(binding, "at::Tensor d = at::empty(output_shape(a, gemm.n), a.options().dtype(at::kFloat));"));
  EXPECT_TRUE(has(binding, "at::zeros(output_shape(a, gemm.n), a.options().dtype(at::kFloat))"));
  EXPECT_FALSE(has(binding, "a.options())")) << "every output of the op in fp32";
  EXPECT_TRUE(has(binding, "{at::kBFloat16, gemm_wgmma_bf16_out_f32_pick_at, "));
  EXPECT_TRUE(has(binding, "{at::kHalf, gemm_wgmma_out_f32_pick_at, "));
  EXPECT_TRUE(
      has(binding,
          "extern \"C\" int gemm_wgmma_out_f32_dispatch(const half*, const half*, const half*, float*, "));
  EXPECT_TRUE(has(binding, "static_cast<float*>(b[3])"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load, "d = a.new_empty(shape, dtype=torch.float32)"));
  EXPECT_TRUE(has(load, "return a.new_empty(list(a.shape[:-1]) + [n], dtype=torch.float32)"));
  expect_python(load);
  EXPECT_TRUE(has(files.at("README.md"), "of shape [..., N] in fp32, accumulated in fp32"));
  const auto plain = files_of({"search_spaces/gemm_wgmma.json"}, "gemm_wgmma");
  EXPECT_TRUE(has(plain.at("README.md"), "of shape [..., N] of a's dtype, accumulated in fp32"));
  EXPECT_EQ(
      refusal({"search_spaces/gemm_wgmma_bf16.json", "search_spaces/gemm_wgmma_out_f32.json"}),
      "--torch makes one op of spaces whose outputs are of one kind: gemm_wgmma_bf16 writes its inputs' "
      "dtype, gemm_wgmma_out_f32 fp32");
}

// A GEMM space whose maps read a and b directly (no BufferIf) needs K and N multiples of 16 bytes, and its op
// says so before a launch.
TEST(TorchExport, AGemmSpaceWithoutStagingAsksForAlignedRows) {
  std::ifstream in("search_spaces/gemm_wgmma.json");
  auto json = nlohmann::ordered_json::parse(in);
  for (auto& argument : json["KernelSpecification"]["Arguments"]) argument.erase("BufferIf");
  json["KernelSpecification"]["KernelFile"] =
      std::filesystem::absolute("kernels/gemm/gemm_wgmma.cu").string();
  json["Reference"]["KernelFile"] = std::filesystem::absolute("kernels/gemm/gemm_ref.cu").string();
  const auto path = std::filesystem::temp_directory_path() /
                    ("evotune_direct_gemm_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << json.dump(2);
  const auto files = files_of({path.string()}, "gemm_wgmma");
  std::filesystem::remove(path);
  EXPECT_TRUE(has(files.at("binding.cpp"),
                  "evotune_op::check_gemm_inputs(kOp, kDtypes, tensors, b_kmajor, 8, need_cuda)"));
  EXPECT_TRUE(has(files.at("load.py"), "prebuilt.check(tensors, need_cuda, int(b_kmajor), 8)"));
}

TEST(TorchExport, TheDecodeSpacesGiveTheDecodeOpOverAContiguousOrPagedCache) {
  const auto files =
      files_of({"search_spaces/decode_attn.json", "search_spaces/decode_attn_bf16.json"}, "decode_attn");
  for (const char* name :
       {"decode_attn_dispatch.cu", "decode_attn_bf16_dispatch.cu", "torch_op_checks.hpp",
        "torch_op_checks_decode.hpp", "binding.cpp", "load.py", "build_so.sh", "README.md"})
    EXPECT_EQ(files.count(name), 1u) << name;
  expect_rendered(files);
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(
      has(binding,
          "m.def(\"decode_attn(Tensor q, Tensor k_cache, Tensor v_cache, Tensor cache_seqlens, Tensor? "
          "block_table=None, bool is_causal=False) -> Tensor\")"));
  // The integer buffers keep their type in the dispatcher's declaration; the dtype is the float buffers'.
  EXPECT_TRUE(has(binding,
                  "extern \"C\" int decode_attn_dispatch(const half*, const half*, const half*, const int*, "
                  "const int*, half*, long long, "));
  EXPECT_TRUE(has(binding, "{at::kHalf, decode_attn_pick_at, "));
  EXPECT_TRUE(has(binding, "{at::kBFloat16, decode_attn_bf16_pick_at, "));
  // The sizes B, HKV, G, SQ, SKV, D, CAUSAL, PAGED, PAGE in the space's order; a contiguous cache's PAGE is
  // the space's default, as its tuned contiguous problems were stored.
  EXPECT_TRUE(has(binding,
                  "const long long sizes[] = {ds.b, ds.hkv, ds.g, ds.sq, ds.skv, ds.d, is_causal ? 1 : 0, "
                  "ds.page > 0 ? 1 : 0, ds.page > 0 ? ds.page : kPageWhenContiguous};"));
  EXPECT_TRUE(has(binding, "constexpr long long kPageWhenContiguous = 64;"));
  EXPECT_TRUE(has(binding,
                  "void* const buffers[] = {q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(), "
                  "cache_seqlens.data_ptr(), block_table.has_value() ? block_table->data_ptr() : nullptr, "
                  "o.data_ptr()};"));
  EXPECT_TRUE(has(binding, "TORCH_CHECK(true || !is_causal"));
  EXPECT_TRUE(has(binding, "TORCH_CHECK(true || !block_table.has_value()"));
  // No query or no key is answered before a variant is picked or launched.
  EXPECT_LT(binding.find("if (q.numel() == 0 || ds.skv == 0) return ds;"),
            binding.find("require_variant(q.scalar_type()"));
  EXPECT_LT(binding.find("if (ds.skv == 0) return at::zeros_like(q);"),
            binding.find("launch(q, buffers, sizes);"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(
      has(load,
          "prebuilt.launch(q, [q, k_cache, v_cache, cache_seqlens, block_table, o], [b, hkv, g, sq, skv, "
          "d, 1 if is_causal else 0, 1 if page else 0, page or PAGE_WHEN_CONTIGUOUS])"));
  EXPECT_TRUE(has(load, "PAGE_WHEN_CONTIGUOUS = 64"));
  EXPECT_TRUE(has(load, "block_table: Optional[torch.Tensor] = None, is_causal: bool = False"));
  EXPECT_TRUE(has(load, "self.checks = lib.evotune_check_decode"));
  expect_python(load);
  EXPECT_TRUE(has(files.at("README.md"), "as flash_attn_with_kvcache takes it"));
  // The C entry point of the ctypes path: a contiguous cache whose lengths are int64 is refused.
  const char* names[] = {"q", "k_cache", "v_cache", "cache_seqlens"};
  const char* dtypes[] = {"float16", "float16", "float16", "int64"};
  const char* devices[] = {"cuda:0", "cuda:0", "cuda:0", "cuda:0"};
  const int dims[] = {4, 4, 4, 1};
  long long sizes[32] = {}, strides[32] = {};
  const std::vector<std::vector<long long>> shapes{{2, 8, 1, 64}, {2, 100, 2, 64}, {2, 100, 2, 64}, {2}};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    long long stride = 1;
    for (std::size_t d = shapes[i].size(); d-- > 0;) {
      sizes[8 * i + d] = shapes[i][d];
      strides[8 * i + d] = stride;
      stride *= shapes[i][d];
    }
  }
  const unsigned long long addresses[] = {0x10000, 0x20000, 0x30000, 0x40000};
  char message[256];
  EXPECT_GT(evotune_check_decode("evotune::decode", "float16", 4, names, dtypes, devices, dims, sizes,
                                 strides, addresses, 1, message, sizeof message),
            0);
  EXPECT_STREQ(message, "evotune::decode: cache_seqlens must be int32, got int64");
  dtypes[3] = "int32";
  EXPECT_EQ(evotune_check_decode("evotune::decode", "float16", 4, names, dtypes, devices, dims, sizes,
                                 strides, addresses, 1, message, sizeof message),
            0);
}

TEST(TorchExport, WhatCannotMakeOneOpIsRefusedInOneLine) {
  EXPECT_EQ(
      refusal({"tests/data/spaces/saxpy.json"}),
      "--torch exports attention or attention_backward or gemm or decode spaces only, and saxpy is none of "
      "them (attention: it has the buffer x; attention_backward: it has the buffer x; gemm: it has the "
      "buffer x; decode: it has the buffer x)");
  EXPECT_EQ(
      refusal({"search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"}),
      "--torch makes one op of spaces of one family: flash_attn_fwd_wgmma is attention, gemm_wgmma_bf16 "
      "is gemm");
  EXPECT_EQ(refusal({"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma.json"}),
            "--torch takes one space a dtype: two are float16 (gemm_wgmma and another); the op dispatches on "
            "its inputs' dtype");
  EXPECT_EQ(
      refusal({"search_spaces/flash_attn_fwd_wgmma.json", "search_spaces/flash_attn_fwd_wgmma_bf16.json"}),
      "");
}

// The bf16 wgmma space rewritten by `edit` into a temporary file (its kernels by absolute path).
std::string edited_bf16_space(const std::string& tag, void (*edit)(nlohmann::ordered_json&)) {
  const std::filesystem::path source = "search_spaces/flash_attn_fwd_wgmma_bf16.json";
  // As read (its Extends resolved), Expressions in order.
  auto space = nlohmann::ordered_json::parse(SearchSpace::load(source).json_text());
  for (const char* section : {"KernelSpecification", "Reference"}) {
    auto& file = space[section]["KernelFile"];
    file =
        std::filesystem::absolute(source.parent_path() / file.get<std::string>()).lexically_normal().string();
  }
  edit(space);
  const auto path = std::filesystem::temp_directory_path() /
                    ("evotune_torch_" + tag + "_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << space.dump();
  return path.string();
}

const std::vector<std::string> kForward{"search_spaces/flash_attn_fwd_wgmma.json",
                                        "search_spaces/flash_attn_fwd_wgmma_bf16.json"};
const std::vector<std::string> kBackward{"search_spaces/flash_attn_bwd_wgmma.json",
                                         "search_spaces/flash_attn_bwd_wgmma_bf16.json"};

// The forward spaces with their backward twins: one differentiable op. Every dispatcher is built, the
// backward's behind kBackwardTuned and <name>_backward, and <name> becomes <name>_with_lse's o.
TEST(TorchExport, BackwardSpacesBesideTheForwardOnesMakeTheOpDifferentiable) {
  const auto files = files_of({kForward[0], kForward[1], kBackward[0], kBackward[1]}, "attn");
  expect_rendered(files);
  for (const char* name : {"flash_attn_fwd_wgmma_dispatch.cu", "flash_attn_fwd_wgmma_bf16_dispatch.cu",
                           "flash_attn_bwd_wgmma_dispatch.cu", "flash_attn_bwd_wgmma_bf16_dispatch.cu"})
    EXPECT_EQ(files.count(name), 1u) << name;
  EXPECT_EQ(files.count("torch_op_checks_attention_backward.hpp"), 0u);  // the attention checks hold it
  const std::string& binding = files.at("binding.cpp");
  EXPECT_TRUE(
      has(binding,
          "  m.def(\"attn_backward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor lse, Tensor grad_o, "
          "bool is_causal=False) -> (Tensor, Tensor, Tensor)\");\n"));
  EXPECT_TRUE(has(binding,
                  "TORCH_LIBRARY_IMPL(evotune, CUDA, m) {\n  m.impl(\"attn_with_lse\", "
                  "&op_cuda_with_lse);\n  m.impl(\"attn_backward\", &op_cuda_backward);\n}\n"));
  EXPECT_TRUE(has(binding,
                  "TORCH_LIBRARY_IMPL(evotune, CompositeImplicitAutograd, m) {\n  m.impl(\"attn\", "
                  "&op_composite);\n}\n"));
  EXPECT_FALSE(has(binding, "&op_cuda);"));
  EXPECT_TRUE(has(binding, "constexpr bool kBackward = true;"));
  EXPECT_TRUE(has(binding,
                  "const std::vector<Tuned> kBackwardTuned = {\n    {at::kHalf, "
                  "flash_attn_bwd_wgmma_pick_at, "));
  EXPECT_TRUE(has(binding, "    {at::kBFloat16, flash_attn_bwd_wgmma_bf16_pick_at, "));
  // The backward's buffers in its space's order: Q, K, V, O, dO, LSE, dQ, dK, dV.
  EXPECT_TRUE(
      has(binding,
          "const std::vector<void*> buffers = {q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), "
          "grad_o.data_ptr(), lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr()};"));
  EXPECT_TRUE(has(binding,
                  "extern \"C\" int flash_attn_bwd_wgmma_dispatch(const half*, const half*, const "
                  "half*, const half*, const half*, const float*, half*, half*, half*, long long, "));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load, "\nBACKWARD = True\n"));
  EXPECT_TRUE(has(load,
                  "BACKWARD_SPACES = {torch.float16: \"flash_attn_bwd_wgmma\", torch.bfloat16: "
                  "\"flash_attn_bwd_wgmma_bf16\"}"));
  EXPECT_TRUE(has(load, "prebuilt.launch(q, [q, k, v, o, grad_o, lse, dq, dk, dv], "));
  EXPECT_TRUE(has(load, "self.backward_dispatchers = {dtype: self._bind(lib, space, 9)"));
  EXPECT_TRUE(has(load,
                  "torch.library.register_autograd(qualified + \"_with_lse\", backward, "
                  "setup_context=setup_context)"));
  expect_python(load);
  EXPECT_TRUE(
      has(files.at("build_so.sh"), "flash_attn_bwd_wgmma_dispatch.cu flash_attn_bwd_wgmma_bf16_dispatch.cu"));
  EXPECT_TRUE(has(files.at("README.md"), "Differentiable: exported with the backward spaces"));
  EXPECT_TRUE(
      has(files.at("README.md"), "torch.ops.evotune.attn_backward(q, k, v, o, lse, grad_o, is_causal)"));
}

// Without backward spaces the op is as before: no backward op, no composite, and the loader's autograd
// says what to export.
TEST(TorchExport, WithoutBackwardSpacesTheOpSaysWhatToExport) {
  const auto files = files_of(kForward, "attn");
  const std::string& binding = files.at("binding.cpp");
  EXPECT_FALSE(has(binding, "attn_backward("));
  EXPECT_FALSE(has(binding, "CompositeImplicitAutograd, m"));
  EXPECT_TRUE(has(binding, "m.impl(\"attn\", &op_cuda);"));
  EXPECT_TRUE(has(binding, "constexpr bool kBackward = false;"));
  EXPECT_TRUE(has(binding, "const std::vector<Tuned> kBackwardTuned = {\n};"));
  EXPECT_TRUE(has(binding, "const std::vector<void*> buffers = {};"));
  const std::string& load = files.at("load.py");
  EXPECT_TRUE(has(load, "\nBACKWARD = False\n"));
  EXPECT_TRUE(has(load, "BACKWARD_SPACES = {}"));
  EXPECT_TRUE(has(load, "FWD_BF16 BWD_FP16 BWD_BF16 --torch DIR"));
  expect_python(load);
  EXPECT_TRUE(has(files.at("README.md"), "Not differentiable: no backward spaces were exported"));
}

TEST(TorchExport, ABackwardThatDoesNotFitItsForwardIsRefusedInOneLine) {
  EXPECT_EQ(refusal({kBackward[0]}),
            "--torch: flash_attn_bwd_wgmma is a backward (attention_backward): export it beside the "
            "attention spaces whose op it differentiates (evotune export FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 "
            "--torch DIR)");
  EXPECT_EQ(refusal({kForward[0], kForward[1], kBackward[0]}),
            "--torch: the backward needs a space for each of the forward's dtypes, and none of "
            "flash_attn_bwd_wgmma and the others is bfloat16 (as flash_attn_fwd_wgmma_bf16 is)");
  EXPECT_EQ(refusal({kForward[0], kBackward[0], kBackward[1]}),
            "--torch: the backward takes one space for each of the forward's dtypes: 1 forward spaces, 2 "
            "backward");
  EXPECT_EQ(refusal({kBackward[0], kBackward[0], kForward[0]}),
            "--torch takes one space a dtype: two are float16 (flash_attn_bwd_wgmma and another); the op "
            "dispatches on its inputs' dtype");
  EXPECT_EQ(refusal({"search_spaces/gemm_wgmma.json", kBackward[0]}),
            "--torch: flash_attn_bwd_wgmma is the backward of attention ops, and gemm_wgmma is gemm");
  EXPECT_EQ(refusal({"search_spaces/flash_attn_fwd_mma.json", kBackward[0]}),
            "--torch: the backward (flash_attn_bwd_wgmma) reads the forward's LSE, which flash_attn_fwd_mma "
            "does not write");
  EXPECT_EQ(refusal({kBackward[1], kForward[0], kBackward[0], kForward[1]}), "");  // in any order
}

// The spaces of one op have the same buffers (the binding passes the first one's list to each dispatcher),
// and a family's fp32 buffer (attention's LSE) is float whatever the dtype.
TEST(TorchExport, SpacesOfOneOpHaveTheSameBuffersAndLseIsFloat) {
  const std::string without_lse = edited_bf16_space("without_lse", [](nlohmann::ordered_json& space) {
    auto& arguments = space["KernelSpecification"]["Arguments"];
    for (auto it = arguments.begin(); it != arguments.end(); ++it)
      if ((*it)["Name"] == "LSE") {
        arguments.erase(it);
        break;
      }
    for (auto& launch : space["KernelSpecification"]["Launches"]) {
      auto& names = launch["Arguments"];
      names.erase(std::find(names.begin(), names.end(), "LSE"));
    }
    auto& names = space["Reference"]["Arguments"];
    names.erase(std::find(names.begin(), names.end(), "LSE"));
  });
  EXPECT_EQ(refusal({"search_spaces/flash_attn_fwd_wgmma.json", without_lse}),
            "--torch makes one op of spaces with the same buffers: flash_attn_fwd_wgmma and "
            "flash_attn_fwd_wgmma_bf16 differ");
  EXPECT_EQ(refusal({without_lse}), "");
  const std::string half_lse = edited_bf16_space("half_lse", [](nlohmann::ordered_json& space) {
    for (auto& argument : space["KernelSpecification"]["Arguments"])
      if (argument["Name"] == "LSE") argument["Type"] = "bfloat16";
  });
  EXPECT_EQ(refusal({half_lse}),
            "--torch: flash_attn_fwd_wgmma_bf16's LSE must be float (fp32 whatever the op's dtype), not "
            "bfloat16");
  std::filesystem::remove(without_lse);
  std::filesystem::remove(half_lse);
}

// The ctypes path's entry points give the same messages as the checks.
TEST(TorchExport, TheChecksCEntryPointsReadTheArrays) {
  const char* names[] = {"a", "b"};
  const char* dtypes[] = {"float16", "float16"};
  const char* devices[] = {"cuda:0", "cuda:0"};
  const int dims[] = {2, 2};
  long long sizes[16] = {}, strides[16] = {};
  sizes[0] = 256, sizes[1] = 512, strides[0] = 512, strides[1] = 1;  // a [256, 512]
  sizes[8] = 128, sizes[9] = 512, strides[8] = 512, strides[9] = 1;  // b [128, 512]
  const unsigned long long addresses[] = {0x10000, 0x20000};
  char message[256];
  EXPECT_EQ(evotune_check_gemm("evotune::mm", "float16,bfloat16", 2, names, dtypes, devices, dims, sizes,
                               strides, addresses, 1, message, sizeof message, 1, 8),
            0);
  const int length = evotune_check_gemm("evotune::mm", "float16,bfloat16", 2, names, dtypes, devices, dims,
                                        sizes, strides, addresses, 1, message, sizeof message, 0, 8);
  EXPECT_GT(length, 0);
  EXPECT_STREQ(message,
               "evotune::mm: a has K = 512 (its last dimension) but b, [K, N], has shape [128, 512]");
  const int written = evotune_check_attention("evotune::attn", "bfloat16", 2, names, dtypes, devices, dims,
                                              sizes, strides, addresses, 1, message, sizeof message, 1, 1);
  EXPECT_EQ(written, static_cast<int>(std::string(message).size()));
  EXPECT_STREQ(message,
               "evotune::attn: a must be bfloat16 (the exported kernels were tuned for bfloat16), got "
               "float16");
}

}  // namespace torch_export_test
}  // namespace evotune
