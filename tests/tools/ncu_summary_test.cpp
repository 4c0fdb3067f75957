// The profile summary from ncu's CSV pages (tests/data/ncu: the details and raw pages of a two-kernel report
// of the attention backward, in ncu's format): each kernel's figures, the stall reasons ranked, and the
// refusal of text that is no such page.
#include "tools/ncu_summary.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace evotune {
namespace ncu_summary_test {

std::string fixture(const std::string& name) {
  std::ifstream in("tests/data/ncu/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

TEST(NcuSummary, DetailsPageGivesEachKernelsFigures) {
  const std::vector<KernelProfile> kernels = read_ncu_details(fixture("details.csv"));
  ASSERT_EQ(kernels.size(), 2u);
  const KernelProfile& pre = kernels[0];
  EXPECT_EQ(pre.id, "0");
  EXPECT_EQ(pre.kernel, "flash_attn_bwd_preprocess");
  EXPECT_EQ(pre.grid, "(4, 8, 1)");
  EXPECT_EQ(pre.block, "(128, 1, 1)");
  const KernelProfile& main = kernels[1];
  EXPECT_EQ(main.kernel, "flash_attn_bwd_wgmma");
  EXPECT_EQ(main.duration.value, "787.97");
  EXPECT_EQ(main.duration.unit, "usecond");
  EXPECT_EQ(main.sm_frequency.value, "1.59");
  EXPECT_EQ(main.registers.value, "168");
  EXPECT_EQ(main.dynamic_smem.value, "196.61");
  EXPECT_EQ(main.dynamic_smem.unit, "Kbyte/block");
  EXPECT_EQ(main.static_smem.value, "0");
  EXPECT_EQ(main.achieved_occupancy.value, "18.61") << "not the theoretical 18.75";
  EXPECT_EQ(main.dram_throughput.value, "12.06") << "not the memory throughput 38.41";
  EXPECT_TRUE(main.tensor_pipes.empty()) << "the raw page's";
}

TEST(NcuSummary, RawPageAddsTensorPipesAndTheTopThreeStalls) {
  std::vector<KernelProfile> kernels = read_ncu_details(fixture("details.csv"));
  add_ncu_raw_metrics(kernels, fixture("raw.csv"));
  const KernelProfile& main = kernels[1];
  EXPECT_EQ(main.tensor_pipes, (std::vector<std::pair<std::string, double>>{{"gmma", 61.48}, {"hmma", 0}}));
  // "selected" is the warp issuing, no stall; the sampled stall counts are another metric.
  EXPECT_EQ(main.top_stalls,
            (std::vector<std::pair<std::string, double>>{
                {"barrier", 2.64}, {"math_pipe_throttle", 1.31}, {"long_scoreboard", 0.87}}));
  EXPECT_EQ(kernels[0].top_stalls, (std::vector<std::pair<std::string, double>>{
                                       {"long_scoreboard", 9.41}, {"wait", 1.73}, {"barrier", 0.12}}));

  const std::string text = format_kernel_profiles(kernels);
  EXPECT_NE(text.find("flash_attn_bwd_wgmma  grid (132, 1, 1)  block (384, 1, 1)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  787.97 us at 1.59 GHz (SM)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  168 registers/thread\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  shared memory/block 196.61 KB dynamic + 0 B static\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  achieved occupancy 18.61%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  DRAM throughput 12.06%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  tensor pipes gmma 61.5%, hmma 0.0%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  top stalls (cycles per issued instruction) barrier 2.64, math_pipe_throttle 1.31, "
                      "long_scoreboard 0.87\n"),
            std::string::npos)
      << text;
}

// A basic-set report has no stall or pipe metrics; what is missing is left out of the summary.
TEST(NcuSummary, MissingFiguresAreLeftOut) {
  const std::string csv =
      "==WARNING== a line ncu printed before the table\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
      "\"Metric Value\"\n"
      "\"0\",\"7\",\"evotune\",\"h\",\"decode_attn\",\"1\",\"13\",\"(128, 1, 1)\",\"(8, 8, "
      "1)\",\"0\",\"9.0\","
      "\"GPU Speed Of Light Throughput\",\"Duration\",\"msecond\",\"1.02\"\n";
  const std::vector<KernelProfile> kernels = read_ncu_details(csv);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(format_kernel_profiles(kernels), "decode_attn  grid (8, 8, 1)  block (128, 1, 1)\n  1.02 ms\n");
}

TEST(NcuSummary, TextThatIsNoPageIsRefused) {
  EXPECT_THROW(read_ncu_details("==ERROR== cannot open report\n"), Error);
  EXPECT_THROW(read_ncu_details("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n"), Error) << "no metric columns";
  std::vector<KernelProfile> kernels;
  EXPECT_THROW(add_ncu_raw_metrics(kernels, ""), Error);
}

}  // namespace ncu_summary_test
}  // namespace evotune
