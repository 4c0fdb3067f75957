// The exported .cu: a single-kernel space's launcher as it always was; a multi-launch space's launcher that
// runs every launch with scratch carved from the caller's workspace, and its workspace size. Each compiles
// with nvcc.
#include "export/export_variant.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/known_devices.hpp"
#include "space/space_fixture.hpp"
#include "support/nvcc.hpp"

namespace evotune {
namespace export_variant_test {

using testing::kSpaces;

const DeviceInfo kHopper = offline_device("sm_90");

std::string exported(const std::string& space_file, const std::string& problem, const Config& config) {
  const auto space = SearchSpace::load(space_file);
  return render_export(space, space.resolve_problem(problem), config, kHopper, "// test export\n");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using test::nvcc;

// Compiles `text` with `nvcc -c` for sm_90; the compiler's output on failure.
std::string nvcc_error(const std::string& text, const std::string& name, const std::string& arch = "sm_90") {
  testing::TempSpaces folder;
  const auto source = folder.write_text(name + ".cu", text);
  const auto log = folder.dir() / "nvcc.log";
  const std::string command = nvcc() + " -arch=" + arch + " -std=c++17 -c " + source.string() + " -o " +
                              (folder.dir() / (name + ".o")).string() + " >" + log.string() + " 2>&1";
  if (std::system(command.c_str()) == 0) return "";
  std::ifstream in(log);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ExportVariant, SingleKernelSpacesKeepTheirLauncher) {
  const std::string text =
      exported((kSpaces / "saxpy.json").string(), "", {{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}});
  EXPECT_TRUE(contains(text,
                       "extern \"C\" cudaError_t saxpy_launch(const float* x, float* y, int n, float a, "
                       "cudaStream_t stream) {\n  if (n != 4096) return cudaErrorInvalidValue;\n"));
  EXPECT_TRUE(contains(
      text,
      "  saxpy<<<grid, block, shared_bytes, stream>>>(x, y, n, a);\n  return cudaGetLastError();\n}\n"));
  EXPECT_FALSE(contains(text, "workspace"));
}

TEST(ExportVariant, SplitsRunBothKernelsOnTheWorkspace) {
  const std::string text = exported((kSpaces / "row_sum.json").string(), "", {{"BLOCK", 128}, {"SPLITS", 4}});
  // 4 x 100 floats, rounded up to 256 bytes.
  EXPECT_TRUE(contains(text,
                       "extern \"C\" size_t row_sum_workspace_bytes(int rows, int cols) {\n"
                       "  if (rows != 100 || cols != 1000) return SIZE_MAX;\n  return 1792;\n}\n"));
  EXPECT_TRUE(
      contains(text,
               "extern \"C\" cudaError_t row_sum_launch(const float* x, float* out, int rows, int cols, "
               "void* workspace, cudaStream_t stream) {\n"));
  EXPECT_TRUE(contains(
      text, "  float* const partial = reinterpret_cast<float*>(static_cast<char*>(workspace) + 0);\n"));
  const auto part = text.find("row_sum_part<<<grid, block, shared_bytes, stream>>>(x, partial, rows, cols);");
  const auto combine =
      text.find("row_sum_combine<<<grid, block, shared_bytes, stream>>>(partial, out, rows);");
  ASSERT_NE(part, std::string::npos);
  ASSERT_NE(combine, std::string::npos);
  EXPECT_LT(part, combine);
  EXPECT_TRUE(contains(text, "    const dim3 grid(4, 100, 1);\n"));
  EXPECT_TRUE(contains(text, "    const dim3 grid(2, 1, 1);\n    const dim3 block(64, 1, 1);\n"));
}

TEST(ExportVariant, OneSplitNeedsNoWorkspaceButKeepsTheSignature) {
  const std::string text = exported((kSpaces / "row_sum.json").string(), "", {{"BLOCK", 64}, {"SPLITS", 1}});
  EXPECT_TRUE(contains(text, "  return 0;\n}\n"));
  EXPECT_TRUE(
      contains(text, "row_sum_launch(const float* x, float* out, int rows, int cols, void* workspace, "));
  EXPECT_TRUE(contains(text, "row_sum<<<grid, block, shared_bytes, stream>>>(x, out, rows, cols);"));
  EXPECT_FALSE(contains(text, "row_sum_combine<<<"));
}

TEST(ExportVariant, ExportsCompileWithNvcc) {
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(exported((kSpaces / "row_sum.json").string(), "", {{"BLOCK", 256}, {"SPLITS", 2}}),
                       "row_sum"),
            "");
  const Config mma{{"BLOCK_M", 128}, {"BLOCK_N", 64},  {"WARPS", 4},  {"STAGES", 2},
                   {"SWIZZLE", 1},   {"Q_IN_REGS", 0}, {"SPLITS", 4}, {"PERSISTENT", 0}};
  const std::string fp16 = exported("search_spaces/flash_attn_fwd_mma.json", "B=1,H=8,S=512,D=64", mma);
  EXPECT_TRUE(contains(fp16, "flash_attn_fwd_mma_workspace_bytes(int B, int H, int S)"));
  EXPECT_TRUE(contains(fp16, "flash_attn_combine<<<"));
  EXPECT_EQ(nvcc_error(fp16, "mma_fp16"), "");
  Config bf16_config = mma;
  bf16_config["SPLITS"] = 2;
  const std::string bf16 =
      exported("search_spaces/flash_attn_fwd_mma_bf16.json", "B=1,H=2,S=300,D=128,CAUSAL=1", bf16_config);
  EXPECT_EQ(nvcc_error(bf16, "mma_bf16"), "");
}

// The wgmma space's TMA variants: the launcher takes Q, K, V, O and LSE as buffers, encodes a tensor map for
// each of Q, K, V and O with the driver's encoder found through the runtime, and passes them by value (LSE as
// its pointer); it builds for sm_90a.
// Persistent: min(SMs, work tiles) blocks, here the 64 work tiles (8 of 128 rows x 8 heads; an H100 has 132
// SMs).
TEST(ExportVariant, TensorMapsAreEncodedByTheLauncher) {
  const Config config{
      {"CONSUMER_WARPGROUPS", 2}, {"BLOCK_N", 128}, {"STAGES", 2},        {"INTRA_WG_OVERLAP", 1},
      {"WARP_SPECIALIZE", 1},     {"PINGPONG", 1},  {"TMA_LOADS", 1},     {"TMA_STORE", 1},
      {"PERSISTENT", 1},          {"REG_SPLIT", 1}, {"LONGEST_FIRST", 0}, {"CLUSTER", 1},
      {"HEAD_INTERLEAVE", 1},     {"Q_BUFFERS", 1}, {"LAZY_RESCALE", 1},  {"KV_SPLIT", 0},
      {"ROW_SUM_MMA", 0}};
  const std::string text = exported("search_spaces/flash_attn_fwd_wgmma.json", "B=2,H=4,S=1000,D=64", config);
  EXPECT_TRUE(contains(text, "cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\""));
  EXPECT_TRUE(contains(text, "const cuuint64_t dims[] = {64u, 1000u, 8u};"))
      << text.substr(text.size() - 3000);
  EXPECT_TRUE(contains(text, "const cuuint32_t box[] = {64u, 128u, 1u};"));
  EXPECT_TRUE(contains(text, "CU_TENSOR_MAP_SWIZZLE_128B"));
  EXPECT_TRUE(contains(text, "evotune_tensor_map_arg{&K_map_encoded}"));
  EXPECT_TRUE(contains(text, "const cuuint32_t box[] = {64u, 64u, 1u};"));  // O: 64 rows per warpgroup
  EXPECT_TRUE(contains(text, "evotune_tensor_map_arg{&O_map_encoded}"));
  EXPECT_TRUE(contains(text, "const dim3 grid(64, 1, 1);"));
  EXPECT_TRUE(contains(
      text, "flash_attn_fwd_wgmma_launch(const half* Q, const half* K, const half* V, half* O, float* LSE"));
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(text, "wgmma_tma", "sm_90a"), "");
}

// A scratch buffer of FillType Zero (the GEMM's split-K arrival counters, EPILOGUE 2) is cleared on the
// stream by the launcher before the kernel, every call; the other scratch (the partial sums) is not, and the
// two-kernel split-K clears nothing.
TEST(ExportVariant, ZeroedScratchIsClearedBeforeTheLaunch) {
  Config config{
      {"BLOCK_M", 128},  {"BLOCK_N", 128}, {"SWAP_AB", 0},  {"STAGES", 6},  {"CONSUMER_WARPGROUPS", 2},
      {"PERSISTENT", 0}, {"RASTER", 0},    {"SWIZZLE", 1},  {"SPLIT_K", 4}, {"STREAM_K", 0},
      {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 2}, {"PDL", 0}};
  const std::string problem = "M=128,N=4096,K=4096,B_KMAJOR=1";
  const std::string text = exported("search_spaces/gemm_wgmma.json", problem, config);
  // partial: 4 x 128 x 4096 floats (8 MiB); arrivals after it: 32 tiles x 2 warpgroups x 4 warps, 1 KiB.
  EXPECT_TRUE(contains(text,
                       "  int* const arrivals = reinterpret_cast<int*>(static_cast<char*>(workspace) + "
                       "8388608);\n"));
  const auto cleared = text.find(
      "    const cudaError_t cleared = cudaMemsetAsync(arrivals, 0, 1024, stream);\n"
      "    if (cleared != cudaSuccess) return cleared;\n");
  const auto launch = text.find("gemm_wgmma<<<grid, block, shared_bytes, stream>>>(");
  ASSERT_NE(cleared, std::string::npos) << text.substr(text.size() - 3000);
  ASSERT_NE(launch, std::string::npos);
  EXPECT_LT(cleared, launch);
  EXPECT_FALSE(contains(text, "cudaMemsetAsync(partial"));
  EXPECT_FALSE(contains(text, "gemm_splitk_reduce<<<"));
  config["EPILOGUE"] = 0;
  const std::string two = exported("search_spaces/gemm_wgmma.json", problem, config);
  EXPECT_FALSE(contains(two, "cudaMemsetAsync"));
  EXPECT_TRUE(contains(two, "gemm_splitk_reduce<<<"));
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(text, "gemm_in_kernel_reduce", "sm_90a"), "");
}

// Rows TMA cannot address (K and N odd, B [K, N]): the launcher stages A and B into the workspace first, then
// encodes their maps over the copies with the padded strides; at aligned sizes it maps the caller's buffers.
TEST(ExportVariant, OddRowsAreStagedIntoTheWorkspace) {
  const Config config{
      {"BLOCK_M", 128},  {"BLOCK_N", 256}, {"SWAP_AB", 0},  {"STAGES", 4},  {"CONSUMER_WARPGROUPS", 2},
      {"PERSISTENT", 1}, {"RASTER", 1},    {"SWIZZLE", 8},  {"SPLIT_K", 1}, {"STREAM_K", 0},
      {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 0}, {"PDL", 0}};
  const std::string text =
      exported("search_spaces/gemm_wgmma.json", "M=4095,N=4097,K=4093,B_KMAJOR=0", config);
  // A_staged: 4095 rows of 4096 halves (33546240 bytes); B_staged after it: 4093 rows of 4104.
  EXPECT_TRUE(contains(
      text, "  half* const A_staged = reinterpret_cast<half*>(static_cast<char*>(workspace) + 0);\n"));
  EXPECT_TRUE(contains(
      text, "  half* const B_staged = reinterpret_cast<half*>(static_cast<char*>(workspace) + 33546240);\n"));
  EXPECT_TRUE(contains(text, "  return 67141632;\n"));  // 33546240 + 4093 x 4104 x 2, to 256 bytes
  const auto stage_a = text.find("gemm_stage_a<<<grid, block, shared_bytes, stream>>>(A, A_staged, M, K)");
  const auto stage_b = text.find("gemm_stage_b<<<grid, block, shared_bytes, stream>>>(B, B_staged, N, K)");
  const auto product = text.find("gemm_wgmma<<<grid, block, shared_bytes, stream>>>(");
  ASSERT_NE(stage_a, std::string::npos) << text.substr(text.size() - 4000);
  ASSERT_NE(stage_b, std::string::npos);
  ASSERT_NE(product, std::string::npos);
  EXPECT_LT(stage_a, stage_b);
  EXPECT_LT(stage_b, product);
  EXPECT_TRUE(contains(text, "const cuuint64_t strides[] = {8192u};"));  // A's rows: 4096 halves
  EXPECT_TRUE(contains(text, "const cuuint64_t strides[] = {8208u};"));  // B's rows: 4104 halves
  EXPECT_TRUE(contains(text, "const_cast<void*>(static_cast<const void*>(A_staged))"));
  EXPECT_TRUE(contains(text, "const_cast<void*>(static_cast<const void*>(B_staged))"));
  const std::string aligned = exported("search_spaces/gemm_wgmma.json", "M=4096,N=4096,K=4096", config);
  EXPECT_FALSE(contains(aligned, "gemm_stage_a<<<")) << "nothing staged at aligned sizes";
  EXPECT_FALSE(contains(aligned, "gemm_stage_b<<<")) << "nothing staged at aligned sizes";
  EXPECT_TRUE(contains(aligned, "const_cast<void*>(static_cast<const void*>(A))"));
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(text, "gemm_odd_rows", "sm_90a"), "");
}

// A clustered launch is exported through cudaLaunchKernelEx with the cluster attribute.
TEST(ExportVariant, ClustersLaunchThroughLaunchKernelEx) {
  const std::string text = exported((kSpaces / "cluster_copy.json").string(), "N=1000",
                                    {{"CLUSTER", 2}, {"BLOCK", 256}, {"SMEM_KB", 0}});
  EXPECT_TRUE(contains(text, "cluster[0].val.clusterDim.x = 2;"));
  EXPECT_TRUE(contains(text, "cudaLaunchKernelEx(&config, cluster_copy, x, y, n)"));
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(text, "cluster_copy"), "");
}

// The decode space's PDL 1: the split kernel launched as before, the combine through cudaLaunchKernelEx with
// the programmatic-stream-serialization attribute where the device (asked at run time) is sm_90 or later; it
// compiles for sm_90 and for sm_80, where the kernels' griddepcontrol instructions are compiled out.
TEST(ExportVariant, AProgrammaticLaunchSetsTheAttributeOnDevicesThatRunIt) {
  const Config config{{"BLOCK_N", 64},    {"WARPS", 4},   {"STAGES", 3},  {"M_TILES", 1},
                      {"NUM_SPLITS", 16}, {"COMBINE", 0}, {"L2_256B", 1}, {"PDL", 1}};
  const std::string text =
      exported("search_spaces/decode_attn.json", "B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128", config);
  const auto query =
      text.find("const cudaError_t programmatic_known = evotune_programmatic_launches(&programmatic);");
  ASSERT_NE(query, std::string::npos) << text;
  EXPECT_TRUE(contains(text, "*allowed = major >= 9;")) << "compute capability 9.0 and later";
  const auto split = text.find("decode_attn_split<<<grid, block, shared_bytes, stream>>>(", query);
  ASSERT_NE(split, std::string::npos) << "the first launch is an ordinary one";
  const auto attribute = text.find(
      "  attributes[attribute_count].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n", split);
  ASSERT_NE(attribute, std::string::npos) << text;
  EXPECT_LT(text.find("if (programmatic) {", split), attribute);
  EXPECT_TRUE(contains(text, "attributes[attribute_count].val.programmaticStreamSerializationAllowed = 1;"));
  EXPECT_NE(
      text.find("cudaLaunchKernelEx(&config, decode_attn_combine, O_part, L_part, o, total_rows)", attribute),
      std::string::npos);
  EXPECT_TRUE(contains(text, "#define PDL 1"));

  Config ordinary = config;
  ordinary["PDL"] = 0;
  const std::string plain =
      exported("search_spaces/decode_attn.json", "B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128", ordinary);
  EXPECT_FALSE(contains(plain, "evotune_programmatic_launches")) << "PDL 0 asks nothing";
  EXPECT_TRUE(contains(plain, "decode_attn_combine<<<grid, block, shared_bytes, stream>>>("));
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  EXPECT_EQ(nvcc_error(text, "decode_pdl"), "");
  EXPECT_EQ(nvcc_error(text, "decode_pdl_sm80", "sm_80"), "");
}

}  // namespace export_variant_test
}  // namespace evotune
