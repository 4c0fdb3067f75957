// The dispatching export on the saxpy test space, whose condition TILE <= N depends on a run-time size: the
// generated file compiles with nvcc, its variants coexist, and its <space>_pick gives DispatchTable::pick's
// answer (exact, nearest that runs, default, covers, refusals) at tuned and untuned sizes, with no GPU.
#include "export/export_dispatch.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "export/neighbour_covers.hpp"
#include "space/space_fixture.hpp"
#include "support/nvcc.hpp"

namespace evotune {
namespace export_dispatch_test {

using test::compile_errors;
using test::nvcc;
using test::read;
using testing::kSpaces;

const DeviceInfo kDevice = offline_device("sm_90");
const std::string kSm90a = "-gencode=arch=compute_90a,code=sm_90a";  // wgmma's target

Config saxpy(ParamValue block, ParamValue items, ParamValue vector) {
  return {{"BLOCK", block}, {"ITEMS", items}, {"VECTOR", vector}};
}

// ALIGN=4's winners: N=1024 a tile of 1024, N=4096 a tile of 1024 (float4), N=65536 a tile of 32; then
// `align1`, the ALIGN=1 problem.
DispatchTable saxpy_table_with(TunedProblem align1) {
  return DispatchTable({"ALIGN"},
                       {{{{"N", 1024}, {"ALIGN", 4}},
                         {{saxpy(1024, 1, 0), 5.0}, {saxpy(32, 1, 0), 9.0}, {saxpy(256, 4, 1), 6.0}}},
                        {{{"N", 4096}, {"ALIGN", 4}},
                         {{saxpy(256, 4, 1), 6.0}, {saxpy(1024, 1, 0), 7.0}, {saxpy(32, 1, 0), 20.0}}},
                        {{{"N", 65536}, {"ALIGN", 4}}, {{saxpy(32, 1, 0), 30.0}, {saxpy(1024, 1, 0), 35.0}}},
                        std::move(align1)});
}

// ALIGN=1 at N=4096: a tile of 256.
DispatchTable saxpy_table() {
  return saxpy_table_with({{{"N", 4096}, {"ALIGN", 1}}, {{saxpy(128, 2, 0), 8.0}}});
}

TEST(ExportDispatch, EachDistinctWinnerOnceInItsOwnNamespace) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  const DispatchTable table = saxpy_table();
  const auto variants = dispatch_variants(space, table);
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(variants[0], (DispatchVariant{saxpy(1024, 1, 0), {{"ALIGN", 4}}}));
  EXPECT_EQ(variants[3], (DispatchVariant{saxpy(128, 2, 0), {{"ALIGN", 1}}}));
  const std::string text = render_dispatch_export(space, table, kDevice, "// test\n");
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(text.find("namespace saxpy_variant" + std::to_string(i) + " {"), std::string::npos);
    // The kernel renamed after the space and the variant (extern "C" names ignore the namespace).
    EXPECT_NE(text.find("saxpy_v" + std::to_string(i) + "_saxpy(const float*"), std::string::npos);
  }
  EXPECT_NE(text.find("#undef BLOCK"), std::string::npos);
  EXPECT_NE(text.find("extern \"C\" int saxpy_dispatch(const float* x, float* y, long long size_N, long long "
                      "size_ALIGN, void* workspace, size_t workspace_size, cudaStream_t stream)"),
            std::string::npos);
  EXPECT_NE(text.find("evotune_expr::cdiv(N, TILE)"), std::string::npos)
      << "the grid is computed at run time";
}

// A template that includes its own headers (the GEMM template, kernels/common/sm90): the exported file holds
// them once, ahead of the variants, and compiles where no kernels/ folder is beside it (the small problem's
// winner swapped: a 16-row tile, wgmma's n, whose condition on M the dispatcher checks at run time).
TEST(ExportDispatch, TheTemplatesOwnHeadersAreInlinedOnce) {
  const auto space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const auto gemm = [](ParamValue block_m, ParamValue block_n, ParamValue split,
                       bool reduce_in_kernel = false) {
    const bool swap = block_m < 64;
    return Config{{"BLOCK_M", block_m},
                  {"BLOCK_N", block_n},
                  {"SWAP_AB", swap ? 1 : 0},
                  {"STAGES", 4},
                  {"CONSUMER_WARPGROUPS", swap ? 1 : 2},
                  {"PERSISTENT", 1},
                  {"RASTER", 0},
                  {"SWIZZLE", 8},
                  {"SPLIT_K", split},
                  {"STREAM_K", 0},
                  {"CLUSTER_M", 1},
                  {"CLUSTER_N", 1},
                  {"EPILOGUE", split == 1 ? 1 : (reduce_in_kernel ? 2 : 0)},
                  {"PDL", 0}};
  };
  const Sizes flags{{"B_KMAJOR", 1}, {"BIAS", 0}, {"ACT", 0}};
  Sizes large = flags, small = flags, few_tiles = flags;
  large.insert({{"M", 4096}, {"N", 4096}, {"K", 4096}});
  small.insert({{"M", 16}, {"N", 4096}, {"K", 4096}});
  few_tiles.insert({{"M", 128}, {"N", 4096}, {"K", 4096}});
  const DispatchTable table({"B_KMAJOR", "BIAS", "ACT"}, {{large, {{gemm(128, 256, 1), 200.0}}},
                                                          {small, {{gemm(16, 128, 4), 9.0}}},
                                                          {few_tiles, {{gemm(128, 128, 4, true), 15.0}}}});
  const std::string text = render_dispatch_export(space, table, offline_device("sm_90"), "// t\n");
  EXPECT_EQ(text.find("\n#include \"../common/sm90/"), std::string::npos) << "a relative include left in";
  const auto once = [&](const std::string& part) {
    const auto first = text.find(part);
    return first != std::string::npos && text.find(part, first + 1) == std::string::npos;
  };
  EXPECT_TRUE(once("struct TmaPipeline {")) << "kernels/common/sm90/pipeline.cuh, once";
  EXPECT_TRUE(once("struct alignas(64) TensorMap {")) << "kernels/common/sm90/arch.cuh, once";
  EXPECT_NE(text.find("#define SWAP_AB 1"), std::string::npos) << "the swapped variant";
  // EPILOGUE 2's arrival counters (FillType Zero) are cleared on the stream before its launch, every call;
  // only that variant's dispatch clears anything.
  EXPECT_TRUE(once("    arrivals_bytes = size_t(count) * sizeof(int);\n"));
  const std::string clearing =
      "  if (arrivals_bytes > 0) {\n    const cudaError_t cleared = cudaMemsetAsync(arrivals, 0, "
      "arrivals_bytes, "
      "stream);\n    if (cleared != cudaSuccess) return cleared;\n  }\n";
  const auto cleared = text.find(clearing);
  ASSERT_NE(cleared, std::string::npos);
  EXPECT_EQ(text.find("cudaMemsetAsync"), cleared + clearing.find("cudaMemsetAsync")) << "the first";
  EXPECT_EQ(text.find("cudaMemsetAsync", cleared + clearing.size()), std::string::npos) << "and the only one";
  EXPECT_NE(text.find("cudaLaunchKernelEx", cleared), std::string::npos) << "the launch after the clearing";
  // Rows TMA cannot address: each call decides from its sizes whether A and B are staged (the copy kernels
  // first, their scratch in the workspace only then) and which buffer each map describes.
  EXPECT_NE(text.find("if (evotune_expr::holds(STAGE_A)) mapped = A_staged;"), std::string::npos);
  EXPECT_NE(text.find("if (evotune_expr::holds(STAGE_B)) mapped = B_staged;"), std::string::npos);
  // (variant 0: its product is launch 3, EPILOGUE 1; variant 2's launch 4, EPILOGUE 2)
  for (const char* product : {"launch3", "launch4"}) {
    EXPECT_NE(text.find("  if (launch0 || (" + std::string(product) + " && evotune_expr::holds(STAGE_A))) {"),
              std::string::npos);
    EXPECT_NE(text.find("  if (launch1 || (" + std::string(product) + " && evotune_expr::holds(STAGE_B))) {"),
              std::string::npos);
  }
  EXPECT_EQ(text.find("programmatic_known"), std::string::npos) << "PDL 0 variants ask nothing";
  EXPECT_NE(text.find("const bool launch0 = evotune_expr::holds(STAGE_A);"), std::string::npos);
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(compile_errors(folder.write_text("gemm_dispatch.cu", text), kSm90a), "");
}

// The decode family's path (its torch op calls this dispatcher with a workspace it does not clear): a winner
// that combines its splits in the kernel (COMBINE=1) clears its arrival counters on the stream before its one
// launch, every call; the winner with a combine kernel clears nothing.
Config decode_config(ParamValue splits, ParamValue combine, ParamValue pdl) {
  return {{"BLOCK_N", 64},        {"WARPS", 4},         {"STAGES", 3},  {"M_TILES", 1},
          {"NUM_SPLITS", splits}, {"COMBINE", combine}, {"L2_256B", 1}, {"PDL", pdl}};
}

// The fp16 decode space's dispatcher over two winners: `small`'s at B = 1 and 4k keys, `large`'s at B = 8
// and 32k keys.
std::string decode_dispatch(const Config& small, const Config& large) {
  const auto space = SearchSpace::load("search_spaces/decode_attn.json");
  const std::vector<std::string> compile_time{"G", "SQ", "D", "CAUSAL", "PAGED", "PAGE"};
  const DispatchTable table(
      compile_time, {{space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128"), {{small, 8.0}}},
                     {space.resolve_problem("B=8,HKV=8,G=4,SQ=1,SKV=32768,D=128"), {{large, 350.0}}}});
  return render_dispatch_export(space, table, kDevice, "// t\n");
}

TEST(ExportDispatch, DecodeCountersAreClearedBeforeTheLaunchThatCombinesInTheKernel) {
  const std::string text = decode_dispatch(decode_config(16, 1, 0), decode_config(4, 0, 0));
  const std::string clearing =
      "  if (arrivals_bytes > 0) {\n    const cudaError_t cleared = cudaMemsetAsync(arrivals, 0, "
      "arrivals_bytes, stream);\n    if (cleared != cudaSuccess) return cleared;\n  }\n";
  const auto cleared = text.find(clearing);
  ASSERT_NE(cleared, std::string::npos) << text;
  EXPECT_EQ(text.find("cudaMemsetAsync"), cleared + clearing.find("cudaMemsetAsync")) << "the first";
  EXPECT_EQ(text.find("cudaMemsetAsync", cleared + clearing.size()), std::string::npos) << "and the only one";
  const auto fused = text.find("decode_attn_split_combine", cleared);
  EXPECT_NE(fused, std::string::npos) << "the launch that combines in the kernel, after the clearing";
  EXPECT_EQ(text.find("arrivals_bytes = size_t(count) * sizeof(int);"),
            text.rfind("arrivals_bytes = size_t(count) * sizeof(int);"))
      << "one variant sizes counters";
  EXPECT_NE(text.find("_decode_attn_combine("), std::string::npos) << "the other variant's combine kernel";
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(
      compile_errors(folder.write_text("decode_dispatch.cu", text), "-gencode=arch=compute_90,code=sm_90"),
      "");
}

// The GEMM space's PDL 1 winner: its product ("Programmatic": "always") sets the programmatic attribute on a
// device the runtime reports as sm_90 or later wherever it runs, its first launch too (behind the caller's
// kernel); the copy kernels that stage odd rows before it stay ordinary launches. It compiles for sm_90a.
TEST(ExportDispatch, GemmPdlProductIsProgrammaticFromTheFirstLaunch) {
  const SearchSpace space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const Config pdl{
      {"BLOCK_M", 128},  {"BLOCK_N", 256}, {"SWAP_AB", 0},  {"STAGES", 4},  {"CONSUMER_WARPGROUPS", 2},
      {"PERSISTENT", 1}, {"RASTER", 0},    {"SWIZZLE", 8},  {"SPLIT_K", 1}, {"STREAM_K", 0},
      {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 1}, {"PDL", 1}};
  Sizes sizes{{"B_KMAJOR", 1}, {"BIAS", 0}, {"ACT", 0}, {"M", 4096}, {"N", 4096}, {"K", 4096}};
  const DispatchTable table({"B_KMAJOR", "BIAS", "ACT"}, {{sizes, {{pdl, 200.0}}}});
  const std::string text = render_dispatch_export(space, table, offline_device("sm_90"), "// t\n");
  const auto asked =
      text.find("const cudaError_t programmatic_known = evotune_programmatic_launches(&programmatic);");
  ASSERT_NE(asked, std::string::npos) << text;
  const std::string gated =
      "    if (programmatic) {  // Programmatic: may start before the kernel before it ends";
  const auto attribute = text.find(gated, asked);
  ASSERT_NE(attribute, std::string::npos) << text;
  EXPECT_EQ(text.find(gated, attribute + 1), std::string::npos) << "the product's launch only";
  EXPECT_EQ(text.find("if (programmatic && earlier_launch)"), std::string::npos)
      << "no launch waits for another";
  EXPECT_NE(text.find("cudaLaunchAttributeProgrammaticStreamSerialization", attribute), std::string::npos);
  EXPECT_NE(text.find("#define PDL 1"), std::string::npos);
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(compile_errors(folder.write_text("gemm_pdl_dispatch.cu", text), kSm90a), "");
}

// The decode space's PDL 1 winner: its combine launch sets the programmatic attribute only after a launch of
// the same call (the split kernel) on a device the runtime reports as sm_90 or later; the PDL 0 winner's
// launches never do. Both variants compile, for sm_90 and for sm_80.
TEST(ExportDispatch, DecodeCombineIsProgrammaticOnlyBehindTheSplitKernel) {
  const std::string text = decode_dispatch(decode_config(16, 0, 1), decode_config(4, 0, 0));
  const std::string query =
      "const cudaError_t programmatic_known = evotune_programmatic_launches(&programmatic);";
  const auto asked = text.find(query);
  ASSERT_NE(asked, std::string::npos) << text;
  EXPECT_EQ(text.find(query, asked + 1), std::string::npos) << "only the PDL 1 variant asks";
  EXPECT_NE(text.find("static inline cudaError_t evotune_programmatic_launches(bool* allowed)"),
            std::string::npos);
  const std::string gated = "    if (programmatic && earlier_launch) {";
  const auto attribute = text.find(gated, asked);
  ASSERT_NE(attribute, std::string::npos) << text;
  EXPECT_EQ(text.find(gated, attribute + 1), std::string::npos) << "one programmatic launch in the file";
  EXPECT_LT(text.find("    earlier_launch = true;\n", asked), attribute)
      << "set by the split launch before it";
  EXPECT_NE(text.find("cudaLaunchAttributeProgrammaticStreamSerialization", attribute), std::string::npos);
  EXPECT_LT(text.find("_decode_attn_combine, O_part, L_part, o, total_rows_arg)", attribute),
            text.find("return 0;\n}", attribute))
      << "the attribute is the combine's";
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  const auto file = folder.write_text("decode_pdl_dispatch.cu", text);
  for (const char* arch : {"sm_90", "sm_80"})
    EXPECT_EQ(compile_errors(file, std::string("-arch=") + arch), "");
}

// The attention backward: its template includes a header of its own folder (bwd_tile_layout.cuh, the tiles'
// layout) whose namespace the template's own namespace uses. The exported file inlines that header once,
// ahead of the variants, and two variants in their own namespaces (one storing dS^T with stmatrix, the other
// computing each tile's dQ in alternating warpgroups, its LSE values read early) still compile.
TEST(ExportDispatch, TheBackwardsTwoVariantsCompileWithTheirLayoutHeaderInlinedOnce) {
  const auto space = SearchSpace::load("search_spaces/flash_attn_bwd_wgmma.json");
  const auto bwd = [](ParamValue block_m, ParamValue stages, ParamValue stmatrix, ParamValue interleave,
                      ParamValue alternate, ParamValue early_rows) {
    return Config{{"BLOCK_M", block_m},
                  {"BLOCK_N", 128},
                  {"STAGES", stages},
                  {"WARP_SPECIALIZE", 1},
                  {"TMA_LOADS", 1},
                  {"DQ_ATOMIC", 3},
                  {"DS_DOUBLE_BUFFER", 0},
                  {"NEXT_TILE_OVERLAP", 0},
                  {"DQ_WRITER", 0},
                  {"DS_STMATRIX", stmatrix},
                  {"HEAD_INTERLEAVE", interleave},
                  {"DQ_ALTERNATE", alternate},
                  {"ROW_STATS_EARLY", early_rows}};
  };
  const auto problem = [&](const char* text) { return space.resolve_problem(text); };
  const DispatchTable table(
      {"D", "CAUSAL"}, {{problem("B=4,H=16,S=4096,D=128,CAUSAL=0"), {{bwd(64, 2, 0, 1, 1, 1), 2900.0}}},
                        {problem("B=8,H=16,S=4096,D=64,CAUSAL=1"), {{bwd(128, 3, 1, 4, 0, 0), 1600.0}}}});
  const std::string text = render_dispatch_export(space, table, kDevice, "// t\n");
  const auto once = [&](const std::string& part) {
    const auto first = text.find(part);
    return first != std::string::npos && text.find(part, first + 1) == std::string::npos;
  };
  EXPECT_TRUE(once("namespace attn_bwd_layout {")) << "bwd_tile_layout.cuh, once";
  EXPECT_NE(text.find("#define DS_STMATRIX 1"), std::string::npos) << "the stmatrix variant";
  EXPECT_NE(text.find("#define HEAD_INTERLEAVE 4"), std::string::npos) << "the causal variant's block order";
  EXPECT_NE(text.find("#define DQ_ALTERNATE 1"), std::string::npos) << "the alternating dQ variant";
  EXPECT_NE(text.find("#define ROW_STATS_EARLY 1"), std::string::npos) << "its LSE values read early";
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(compile_errors(folder.write_text("bwd_dispatch.cu", text), kSm90a), "");
}

// The attention forward: its roles are headers of its own folder (fwd_wgmma/*.cuh) that read the tuning
// parameters, so each variant holds its own copy of them inside its namespace, while the shared primitives
// (kernels/common/sm90, the element type among them) stand once, ahead of the variants; two variants (one
// persistent with two Q tiles and K/V on their own barriers, the other causal, longest first, in pingpong)
// compile.
TEST(ExportDispatch, TheForwardsRoleHeadersGoIntoEachVariantAndItsPrimitivesOnce) {
  const auto space = SearchSpace::load("search_spaces/flash_attn_fwd_wgmma.json");
  const auto fwd = [](ParamValue persistent, ParamValue longest_first, ParamValue kv_split) {
    return Config{{"CONSUMER_WARPGROUPS", 2},
                  {"BLOCK_N", 128},
                  {"STAGES", 2},
                  {"INTRA_WG_OVERLAP", 1},
                  {"WARP_SPECIALIZE", 1},
                  {"TMA_LOADS", 1},
                  {"TMA_STORE", 1},
                  {"PERSISTENT", persistent},
                  {"REG_SPLIT", 1},
                  {"LONGEST_FIRST", longest_first},
                  {"CLUSTER", 1},
                  {"PINGPONG", 1},
                  {"HEAD_INTERLEAVE", 1},
                  {"Q_BUFFERS", persistent ? 2 : 1},
                  {"LAZY_RESCALE", 1},
                  {"KV_SPLIT", kv_split},
                  {"ROW_SUM_MMA", persistent}};
  };
  const auto problem = [&](const char* text) { return space.resolve_problem(text); };
  const DispatchTable table({"D", "CAUSAL"},
                            {{problem("B=8,H=32,HKV=8,S=512,D=128,CAUSAL=0"), {{fwd(1, 0, 1), 72.0}}},
                             {problem("B=2,H=16,S=8192,D=128,CAUSAL=1"), {{fwd(0, 1, 0), 1000.0}}}});
  const std::string text = render_dispatch_export(space, table, kDevice, "// t\n");
  const auto count = [&](const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("namespace element_type {"), 1u) << "kernels/common/sm90/element_type.cuh, once";
  EXPECT_EQ(count("struct Pair<F16> {"), 1u) << "kernels/common/sm90/warpgroup.cuh, once";
  EXPECT_EQ(count("struct Softmax {"), 2u) << "fwd_wgmma/softmax.cuh, in each variant";
  EXPECT_EQ(count("struct SharedStorage {"), 2u) << "fwd_wgmma/shared_storage.cuh, in each variant";
  EXPECT_EQ(text.find("\n#include \"fwd_wgmma/"), std::string::npos) << "a role header left as an include";
  EXPECT_EQ(text.find("\n#include \"config.cuh\""), std::string::npos) << "a role header's own include left";
  EXPECT_NE(text.find("#define KV_SPLIT 1"), std::string::npos) << "the persistent variant";
  EXPECT_NE(text.find("#define LONGEST_FIRST 1"), std::string::npos) << "the causal variant";
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(compile_errors(folder.write_text("fwd_dispatch.cu", text), kSm90a), "");
}

// saxpy_table with its ALIGN=1 problem at N=256 (winner: a tile of 256; measured beside it, tiles of 64 and
// 32), and the covers add_neighbour_covers gives it: at N=255, next to it, no ALIGN=1 winner runs, so the
// fastest config measured at N=256 that runs there, the 64-thread tile, serves N=64..255.
DispatchTable saxpy_table_with_a_cover(const SearchSpace& space) {
  DispatchTable table =
      saxpy_table_with({{{"N", 256}, {"ALIGN", 1}},
                        {{saxpy(256, 1, 0), 8.0}, {saxpy(32, 1, 0), 12.0}, {saxpy(64, 1, 0), 9.0}}});
  EXPECT_EQ(add_neighbour_covers(space, table, kDevice), 1u);
  return table;
}

TEST(ExportDispatch, NeighbourCoversServeSizesNextToTheTunedOnesWhereNoWinnerRuns) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  EXPECT_EQ(
      neighbour_problems(space, {{"N", 256}, {"ALIGN", 1}}),
      (std::vector<Sizes>{{{"N", 255}, {"ALIGN", 1}}, {{"N", 257}, {"ALIGN", 1}}, {{"N", 1}, {"ALIGN", 1}}}));
  const DispatchTable table = saxpy_table_with_a_cover(space);
  ASSERT_EQ(table.covers().size(), 1u);
  EXPECT_EQ(table.covers()[0], (std::pair<Sizes, Config>{{{"N", 256}, {"ALIGN", 1}}, saxpy(64, 1, 0)}));
  auto pick = [&](std::int64_t n, std::int64_t align) {
    const Sizes problem{{"N", n}, {"ALIGN", align}};
    return table.pick(problem,
                      [&](const Config& config) { return space.check(config, problem, kDevice).valid; });
  };
  const auto covered = pick(255, 1);
  ASSERT_TRUE(covered);
  EXPECT_EQ(covered->rule, DispatchRule::fallback);
  EXPECT_EQ(covered->config, saxpy(64, 1, 0));
  EXPECT_EQ(pick(64, 1)->config, saxpy(64, 1, 0));
  EXPECT_FALSE(pick(63, 1)) << "no exported ALIGN=1 tile fits 63 elements";
  EXPECT_EQ(pick(256, 1)->config, saxpy(256, 1, 0));
  // No cover where a winner of another tuned problem serves the neighbour (N=1023: the 32-element tile).
  EXPECT_EQ(pick(1023, 4)->rule, DispatchRule::nearest);
  // The cover is exported after the winners, and tried last in its set's default list.
  const auto variants = dispatch_variants(space, table);
  ASSERT_EQ(variants.size(), 5u);
  EXPECT_EQ(variants[4], (DispatchVariant{saxpy(64, 1, 0), {{"ALIGN", 1}}}));
  const std::string text = render_dispatch_export(space, table, kDevice, "// test\n");
  EXPECT_NE(
      text.find("static const int saxpy_defaults[2][7] = {\n    {0, 2, 1, -1},\n    {3, 3, 4, -1},\n};"),
      std::string::npos)
      << text.substr(text.find("saxpy_defaults"), 200);
  // Nothing to cover: a table whose winners run next to every tuned problem gets none.
  DispatchTable plain = saxpy_table();
  EXPECT_EQ(add_neighbour_covers(space, plain, kDevice), 0u);
}

TEST(ExportDispatch, NothingTunedIsAnError) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  EXPECT_THROW(render_dispatch_export(space, DispatchTable({"ALIGN"}, {}), kDevice, ""), Error);
}

// The compiled pick against DispatchTable::pick at sizes around and between the tuned ones.
TEST(ExportDispatch, ThePickOfTheCompiledFileIsTheTablesPick) {
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  const DispatchTable table = saxpy_table_with_a_cover(space);
  const auto variants = dispatch_variants(space, table);
  const std::vector<std::int64_t> lengths{1,    16,   31,   32,   33,    63,    64,     100,
                                          255,  256,  257,  600,  1000,  1023,  1024,   1025,
                                          2000, 3000, 4096, 5000, 30000, 65536, 1000000};
  std::ostringstream host;
  host << "\n#include <cstdio>\nint main() {\n"
       << "  const long long lengths[] = {";
  for (const auto n : lengths) host << n << ", ";
  host << "};\n  for (long long align : {1LL, 4LL, 2LL})\n    for (long long n : lengths) {\n"
       << "      int rule = -1;\n      const int variant = saxpy_pick(n, align, &rule);\n"
       << "      std::printf(\"%lld %lld %d %d\\n\", n, align, variant, variant >= 0 ? rule : -1);\n    }\n"
       << "  std::printf(\"%d %d\\n%s\\n%s\\n\", saxpy_pick(0, 4, nullptr), saxpy_variant_count(),\n"
       << "              saxpy_error_string(-1), saxpy_variant(2));\n"
       << "  std::printf(\"%d %s\\n\", saxpy_pick(16, 4, nullptr), saxpy_error_string(-3));\n}\n";
  testing::TempSpaces folder;
  const auto source =
      folder.write_text("dispatch.cu", render_dispatch_export(space, table, kDevice, "// t\n") + host.str());
  const auto binary = folder.dir() / "dispatch";
  const auto log = folder.dir() / "nvcc.log";
  const std::string build = nvcc() + " -arch=sm_90 -std=c++17 " + source.string() + " -o " + binary.string() +
                            " >" + log.string() + " 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << read(log);
  const auto output = folder.dir() / "picks.txt";
  ASSERT_EQ(std::system((binary.string() + " > " + output.string()).c_str()), 0);
  std::ifstream in(output);
  int nearest = 0, exact = 0, fallback = 0, refused = 0;
  for (const std::int64_t align : {1, 4, 2}) {
    for (const auto n : lengths) {
      long long got_n = 0, got_align = 0;
      int variant = 0, rule = 0;
      ASSERT_TRUE(in >> got_n >> got_align >> variant >> rule);
      ASSERT_EQ(got_n, n);
      const Sizes problem{{"N", n}, {"ALIGN", align}};
      const auto expected = table.pick(
          problem, [&](const Config& config) { return space.check(config, problem, kDevice).valid; });
      const std::string where = key_value_text(problem);
      if (!expected) {
        EXPECT_EQ(variant, align == 2 ? -1 : -3) << where;
        ++refused;
        continue;
      }
      ASSERT_GE(variant, 0) << where;
      EXPECT_EQ(variants.at(variant).config, expected->config) << where;
      EXPECT_EQ(rule, static_cast<int>(expected->rule)) << where;
      exact += expected->rule == DispatchRule::exact;
      nearest += expected->rule == DispatchRule::nearest;
      fallback += expected->rule == DispatchRule::fallback;
    }
  }
  EXPECT_EQ(exact, 4);
  EXPECT_EQ(fallback, 3) << "ALIGN=1 at 64, 100 and 255: the cover";
  EXPECT_GT(nearest, 10);
  EXPECT_GT(refused, lengths.size());  // every ALIGN=2, and lengths shorter than every tile
  int zero = 0, count = 0;
  in >> zero >> count;
  EXPECT_EQ(zero, -2);
  EXPECT_EQ(count, 5);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  EXPECT_EQ(line,
            "saxpy: no variant was tuned for these compile-time sizes (ALIGN); tuned: ALIGN=4; ALIGN=1");
  std::getline(in, line);
  EXPECT_EQ(line, "{\"BLOCK\":32,\"ITEMS\":1,\"VECTOR\":0} compiled for ALIGN=4");
  // Refused: the message names the condition that the nearest tuned problem's (N=1024's) winner fails.
  std::getline(in, line);
  EXPECT_EQ(
      line,
      "-3 saxpy: the space's conditions reject every exported variant at these sizes (tune a problem near "
      "them and export again); the nearest tuned problem's winner fails tile_fits (one block's tile must "
      "not be larger than the whole vector)");
}

// row_sum: SPLITS > 1 runs two launches over scratch from the workspace, and SPLITS <= COLS depends on a
// run-time size. The file compiles, and its workspace and pick follow the sizes (no GPU needed for either).
TEST(ExportDispatch, ScratchSizesAndLaunchesFollowTheSizesOfTheCall) {
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const auto space = SearchSpace::load(kSpaces / "row_sum.json");
  const DispatchTable table({}, {{{{"ROWS", 100}, {"COLS", 1000}}, {{{{"BLOCK", 128}, {"SPLITS", 4}}, 2.0}}},
                                 {{{"ROWS", 100}, {"COLS", 3}}, {{{{"BLOCK", 64}, {"SPLITS", 1}}, 1.0}}}});
  const std::string host = R"(
#include <cstdio>
int main() {
  const long long sizes[][2] = {{100, 1000}, {1000, 100000}, {100, 3}, {100, 2}, {7, 1}};
  for (const auto& s : sizes) {
    size_t bytes = 12345;
    const int status = row_sum_workspace_bytes(s[0], s[1], &bytes);
    std::printf("%d %d %zu\n", row_sum_pick(s[0], s[1], nullptr), status, bytes);
  }
}
)";
  testing::TempSpaces folder;
  const auto source =
      folder.write_text("row_sum.cu", render_dispatch_export(space, table, kDevice, "// t\n") + host);
  const auto binary = folder.dir() / "row_sum";
  const auto log = folder.dir() / "nvcc.log";
  ASSERT_EQ(std::system((nvcc() + " -arch=sm_90 -std=c++17 " + source.string() + " -o " + binary.string() +
                         " >" + log.string() + " 2>&1")
                            .c_str()),
            0)
      << read(log);
  const auto output = folder.dir() / "out.txt";
  ASSERT_EQ(std::system((binary.string() + " > " + output.string()).c_str()), 0);
  // 4 x 100 floats = 1600 bytes, in 256-byte steps 1792; SPLITS = 4 cannot split 2 columns: the SPLITS = 1
  // winner, which needs no scratch; nothing splits 1 column 4 ways but SPLITS = 1 still runs.
  EXPECT_EQ(read(output), "0 0 1792\n0 0 16128\n1 0 0\n1 0 0\n1 0 0\n");
}

// A ProgrammaticIf that reads the call's sizes is decided on each call (beside the launch behind which it
// runs); one that reads only the variant's parameters is decided in the export: where it is 0 the variant
// asks nothing about programmatic launches. Both compile for sm_90.
TEST(ExportDispatch, AProgrammaticIfOfTheSizesIsDecidedOnEachCall) {
  const auto dispatch = [](const std::string& condition) {
    testing::TempSpaces spaces;
    const auto space = testing::row_sum_with_programmatic(spaces, {{2, true}}, condition);  // the combine
    const DispatchTable table({},
                              {{{{"ROWS", 100}, {"COLS", 1000}}, {{{{"BLOCK", 128}, {"SPLITS", 4}}, 2.0}}}});
    return render_dispatch_export(space, table, kDevice, "// t\n");
  };
  const std::string by_rows = dispatch("ROWS > 100");
  const std::string gated = "    if (programmatic && earlier_launch && evotune_expr::holds(";
  const auto attribute = by_rows.find(gated);
  ASSERT_NE(attribute, std::string::npos) << by_rows;
  EXPECT_EQ(by_rows.find(gated, attribute + 1), std::string::npos) << "the combine's launch only";
  EXPECT_NE(by_rows.find("evotune_programmatic_launches(&programmatic);"), std::string::npos);
  const std::string by_splits = dispatch("SPLITS == 2");
  EXPECT_EQ(by_splits.find("evotune_programmatic_launches(&programmatic);"), std::string::npos)
      << "SPLITS 4: never programmatic";
  EXPECT_EQ(by_splits.find("cudaLaunchAttributeProgrammaticStreamSerialization"), std::string::npos);
  const std::string always = dispatch("SPLITS == 4");
  EXPECT_NE(always.find("    if (programmatic && earlier_launch) {"), std::string::npos) << always;
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const testing::TempSpaces folder;
  EXPECT_EQ(compile_errors(folder.write_text("by_rows.cu", by_rows), "-arch=sm_90"), "");
}

// N=600 is nearest to N=1024, whose winner's tile (1024) does not fit; the next that runs is N=65536's.
TEST(ExportDispatch, ANearerWinnerThatCannotRunIsPassedOver) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  const Sizes problem{{"N", 600}, {"ALIGN", 4}};
  const auto choice = saxpy_table().pick(
      problem, [&](const Config& config) { return space.check(config, problem, kDevice).valid; });
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->rule, DispatchRule::nearest);
  EXPECT_EQ(choice->config, saxpy(32, 1, 0));
}

}  // namespace export_dispatch_test
}  // namespace evotune
