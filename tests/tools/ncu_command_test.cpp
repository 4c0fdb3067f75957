// `evotune profile`'s ncu command line for stored configs of the attention spaces: every kernel of the
// variant's launches by its exact name (never the reference's), inside eval's timed range only, one execution
// of the main problem; --kernel picks one of them, and a name the variant does not launch is refused.
#include "tools/ncu_command.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "core/timed_range.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace ncu_command_test {

const DeviceInfo kHopper = offline_device("sm_90");

Config decode_config(ParamValue splits, ParamValue combine) {
  return {{"BLOCK_N", 64},        {"WARPS", 4},         {"STAGES", 3},  {"M_TILES", 1},
          {"NUM_SPLITS", splits}, {"COMBINE", combine}, {"L2_256B", 1}, {"PDL", 0}};
}

std::vector<std::string> launches_of(const char* space_file, const Config& config,
                                     const std::string& kernel = "") {
  const SearchSpace space = SearchSpace::load(space_file);
  const Sizes sizes = space.resolve_problem("");
  EXPECT_TRUE(space.check(config, sizes, kHopper).valid) << space.check(config, sizes, kHopper).reason;
  return profiled_launches(space.variant_launch(config, sizes, kHopper), kernel);
}

// ncu's -k regex (after "regex:") as a whole-name match: what ncu profiles of `name`.
bool filter_matches(const std::string& filter, const std::string& name) {
  EXPECT_EQ(filter.rfind("regex:", 0), 0u) << filter;
  return std::regex_search(name, std::regex(filter.substr(6)));
}

ProfileRequest request_for(const Config& params, const std::string& problem) {
  ProfileRequest request;
  request.space_file = "search_spaces/flash_attn_bwd_wgmma.json";
  request.problem = problem;
  request.params = params;
  request.device = 1;
  request.evotune = "/opt/evotune";
  request.report = "results/profiles/bwd.ncu-rep";
  return request;
}

TEST(NcuCommand, BackwardProfilesItsThreeKernelsNotTheReference) {
  const SearchSpace space = SearchSpace::load("search_spaces/flash_attn_bwd_wgmma.json");
  Config seed = space.seeds().front();  // found for a causal problem: at the default one, heads in order
  seed["HEAD_INTERLEAVE"] = 1;
  const std::vector<std::string> launches = launches_of("search_spaces/flash_attn_bwd_wgmma.json", seed);
  EXPECT_EQ(launches, (std::vector<std::string>{"flash_attn_bwd_preprocess", "flash_attn_bwd_wgmma",
                                                "flash_attn_bwd_convert_dq"}));
  const std::string filter = kernel_name_filter(launches);
  EXPECT_EQ(filter, "regex:^(flash_attn_bwd_preprocess|flash_attn_bwd_wgmma|flash_attn_bwd_convert_dq)$");
  for (const auto& name : launches) EXPECT_TRUE(filter_matches(filter, name)) << name;
  EXPECT_EQ(space.reference().name, "flash_attn_bwd_ref");
  EXPECT_FALSE(filter_matches(filter, space.reference().name));
  EXPECT_FALSE(filter_matches(filter, "flash_attn_bwd_wgmma_bf16")) << "anchored at the end too";

  const ProfileRequest request = request_for(seed, "B=1,H=8,S=512");
  const auto command = ncu_command("/cuda/bin/ncu", request, launches, space.kernel().file, "/tmp/p/ncu.log");
  const std::vector<std::string> expected{"/cuda/bin/ncu",
                                          "--target-processes",
                                          "all",
                                          "--nvtx",
                                          "--nvtx-include",
                                          std::string(kTimedRangeName) + "/",
                                          "--kernel-name",
                                          filter,
                                          "--launch-count",
                                          "3",
                                          "--set",
                                          "full",
                                          "--import-source",
                                          "yes",
                                          "--force-overwrite",
                                          "--export",
                                          "results/profiles/bwd.ncu-rep",
                                          "--log-file",
                                          "/tmp/p/ncu.log",
                                          "/opt/evotune",
                                          "eval",
                                          space.kernel().file.string(),
                                          "--space",
                                          "search_spaces/flash_attn_bwd_wgmma.json",
                                          "--params",
                                          key_value_text(seed),
                                          "--device",
                                          "1",
                                          "--seed",
                                          "1",
                                          "--validation-rounds",
                                          "1",
                                          "--timing",
                                          "single",
                                          "--warmup",
                                          "0",
                                          "--warmup-ms",
                                          "0",
                                          "--reps",
                                          "1",
                                          "--flush-l2",
                                          "off",
                                          "--json",
                                          "--problem",
                                          "B=1,H=8,S=512"};
  EXPECT_EQ(command, expected);
  EXPECT_EQ(std::find(command.begin(), command.end(), "--launch-skip"), command.end())
      << "the timed range holds one execution: nothing to skip by count";
}

TEST(NcuCommand, DecodeSplitsProfileSplitAndCombineAndNeverTheReference) {
  const char* file = "search_spaces/decode_attn.json";
  const std::vector<std::string> two = launches_of(file, decode_config(4, 0));
  EXPECT_EQ(two, (std::vector<std::string>{"decode_attn_split", "decode_attn_combine"}));
  EXPECT_EQ(kernel_name_filter(two), "regex:^(decode_attn_split|decode_attn_combine)$");

  // One split: the kernel named like the space, whose name starts the reference's (decode_attn_ref).
  const std::vector<std::string> one = launches_of(file, decode_config(1, 0));
  EXPECT_EQ(one, std::vector<std::string>{"decode_attn"});
  const std::string filter = kernel_name_filter(one);
  EXPECT_TRUE(filter_matches(filter, "decode_attn"));
  EXPECT_FALSE(filter_matches(filter, "decode_attn_ref")) << "the hand-written ^decode_attn matched it";
  EXPECT_FALSE(filter_matches(filter, "decode_attn_split"));

  ProfileRequest request = request_for(decode_config(4, 0), "");
  request.set = "basic";
  request.execution = 3;
  const auto command = ncu_command("ncu", request, two, "kernels/attention/decode_attn.cu", "/tmp/p/ncu.log");
  const auto after = [&](const std::string& option) {
    const auto at = std::find(command.begin(), command.end(), option);
    return at == command.end() || at + 1 == command.end() ? std::string("(absent)") : *(at + 1);
  };
  EXPECT_EQ(after("--launch-count"), "2") << "both kernels of one execution";
  EXPECT_EQ(after("--set"), "basic");
  EXPECT_EQ(after("--warmup"), "2") << "--launch 3: two untimed executions, then the timed one";
  EXPECT_EQ(after("--reps"), "1");
  EXPECT_EQ(std::find(command.begin(), command.end(), "--problem"), command.end()) << "none given";
}

TEST(NcuCommand, KernelOptionPicksOneOfTheVariantsKernels) {
  const char* file = "search_spaces/decode_attn.json";
  EXPECT_EQ(launches_of(file, decode_config(4, 0), "decode_attn_combine"),
            std::vector<std::string>{"decode_attn_combine"});
  try {
    launches_of(file, decode_config(4, 0), "decode_attn_split_combine");
    FAIL() << "a kernel of the space this variant does not launch";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--kernel decode_attn_split_combine: this variant does not launch it (it launches: "
              "decode_attn_split, decode_attn_combine)");
  }
  const SearchSpace space = SearchSpace::load(file);
  EXPECT_NO_THROW(require_space_kernel(space, "decode_attn_split_combine"));
  EXPECT_NO_THROW(require_space_kernel(space, ""));
  try {
    require_space_kernel(space, "decode_attn_ref");
    FAIL() << "the reference is never profiled";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--kernel decode_attn_ref: no launch of " + space.name() +
                  " runs it (its kernels: decode_attn, decode_attn_split, decode_attn_combine, "
                  "decode_attn_split_combine)");
  }
}

TEST(NcuCommand, AsTimedKeepsTheCachesWarmAndTheClocksFree) {
  const char* file = "search_spaces/decode_attn.json";
  const std::vector<std::string> two = launches_of(file, decode_config(16, 0));
  ProfileRequest request = request_for(decode_config(16, 0), "");
  request.execution = 3;
  const auto flushed = ncu_command("ncu", request, two, "kernels/attention/decode_attn.cu", "/tmp/p/ncu.log");
  EXPECT_EQ(std::find(flushed.begin(), flushed.end(), "--cache-control"), flushed.end())
      << "by default ncu's own: caches flushed, clock locked";
  EXPECT_EQ(std::find(flushed.begin(), flushed.end(), "--clock-control"), flushed.end());

  request.as_timed = true;
  const auto warm = ncu_command("ncu", request, two, "kernels/attention/decode_attn.cu", "/tmp/p/ncu.log");
  const auto at = [&](const std::string& option) {
    return static_cast<std::ptrdiff_t>(std::find(warm.begin(), warm.end(), option) - warm.begin());
  };
  const std::ptrdiff_t program = at("eval") - 1;  // the evotune the profiled eval runs
  ASSERT_LT(at("--cache-control"), program) << "ncu's options come before the profiled program";
  ASSERT_LT(at("--clock-control"), program);
  EXPECT_EQ(warm[at("--cache-control") + 1], "none");
  EXPECT_EQ(warm[at("--clock-control") + 1], "none");
  EXPECT_EQ(warm.size(), flushed.size() + 4) << "nothing else changes";
  EXPECT_EQ(warm[at("--warmup") + 1], "2") << "the executions before the profiled one warm L2";
  EXPECT_EQ(warm[at("--flush-l2") + 1], "off") << "and eval does not flush it either";
}

TEST(NcuCommand, ReportPathAndImport) {
  EXPECT_EQ(ncu_report_path("out/a.ncu-rep"), "out/a.ncu-rep");
  EXPECT_EQ(ncu_report_path("out/a"), "out/a.ncu-rep") << "ncu adds the extension: read back what it wrote";
  EXPECT_EQ(ncu_import_command("ncu", "a.ncu-rep", "details", true),
            (std::vector<std::string>{"ncu", "--import", "a.ncu-rep", "--page", "details", "--csv"}));
  EXPECT_EQ(ncu_import_command("ncu", "a.ncu-rep", "details", false),
            (std::vector<std::string>{"ncu", "--import", "a.ncu-rep", "--page", "details"}));
}

}  // namespace ncu_command_test
}  // namespace evotune
