// Tests of SearchSpace on the saxpy space: constraints, enumeration, launches, buffers, work and the hash.
#include "space/search_space.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace search_space_test {

using testing::kSpaces;
using testing::TempSpaces;

// The message of the Error that `action` throws, or "no error".
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

DeviceInfo test_device() {
  DeviceInfo device;
  device.name = "Test GPU";
  device.cc_major = 9;
  device.cc_minor = 0;
  device.sm_count = 132;
  device.l2_bytes = 50 << 20;
  device.max_threads_per_block = 1024;
  device.max_smem_per_block = 232448;
  device.smem_per_sm = 233472;
  device.regs_per_block = 65536;
  device.regs_per_sm = 65535;
  return device;
}

class SaxpySpace : public ::testing::Test {
 protected:
  SearchSpace space = SearchSpace::load(kSpaces / "saxpy.json");
  Sizes sizes = space.resolve_problem("");
  DeviceInfo device = test_device();
};

// The saxpy conditions, written out in C++ to check the expression evaluation against.
std::vector<Config> expected_configs(std::int64_t n, std::int64_t max_threads) {
  std::vector<Config> configs;
  for (const ParamValue block : {32, 64, 128, 256, 512, 1024})
    for (const ParamValue items : {1, 2, 4, 8})
      for (const ParamValue vector : {0, 1})
        if ((!vector || items % 4 == 0) && block <= max_threads && block * items <= n)
          configs.push_back({{"BLOCK", block}, {"ITEMS", items}, {"VECTOR", vector}});
  return configs;
}

TEST_F(SaxpySpace, EnumeratesInFileOrderWithLastParameterFastest) {
  EXPECT_EQ(space.total_configs(), 48u);
  const auto configs = space.enumerate(sizes, device);
  EXPECT_EQ(configs.size(), 34u);
  EXPECT_EQ(configs, expected_configs(4096, 1024));
  EXPECT_EQ(configs[3], (Config{{"BLOCK", 32}, {"ITEMS", 4}, {"VECTOR", 1}}));
}

TEST_F(SaxpySpace, DeviceLimitsAndProblemSizesReachConditions) {
  device.max_threads_per_block = 256;
  EXPECT_EQ(space.enumerate(sizes, device), expected_configs(4096, 256));
  device.max_threads_per_block = 1024;
  EXPECT_EQ(space.enumerate(space.resolve_problem("N=1024"), device), expected_configs(1024, 1024));
}

TEST_F(SaxpySpace, CheckNamesTheFirstFailedConditionAndItsReason) {
  const auto ok = space.check({{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}}, sizes, device);
  EXPECT_TRUE(ok.valid);
  EXPECT_EQ(ok.condition, "");

  const auto vector = space.check({{"BLOCK", 128}, {"ITEMS", 2}, {"VECTOR", 1}}, sizes, device);
  EXPECT_FALSE(vector.valid);
  EXPECT_EQ(vector.condition, "vector_items");
  EXPECT_EQ(vector.reason, "float4 accesses need ITEMS to be a multiple of 4");

  const auto tile = space.check({{"BLOCK", 1024}, {"ITEMS", 8}, {"VECTOR", 1}}, sizes, device);
  EXPECT_EQ(tile.condition, "tile_fits");
  EXPECT_EQ(tile.reason, "one block's tile must not be larger than the whole vector");

  device.max_threads_per_block = 512;
  EXPECT_EQ(space.check({{"BLOCK", 1024}, {"ITEMS", 1}, {"VECTOR", 0}}, sizes, device).condition,
            "threads_fit");
}

TEST_F(SaxpySpace, RequireKnown) {
  EXPECT_NO_THROW(space.require_known({{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}}));
  const auto message = [&](const Config& config) {
    try {
      space.require_known(config);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"BLOCK", 64}, {"ITEMS", 1}}),
            R"(config {"BLOCK":64,"ITEMS":1}: parameter 'VECTOR' is missing)");
  EXPECT_EQ(message({{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}, {"WARPS", 2}}),
            R"(config {"BLOCK":64,"ITEMS":1,"VECTOR":0,"WARPS":2}: unknown parameter 'WARPS')");
  EXPECT_EQ(message({{"BLOCK", 48}, {"ITEMS", 1}, {"VECTOR", 0}}),
            R"(config {"BLOCK":48,"ITEMS":1,"VECTOR":0}: BLOCK=48 is not one of its values)");
  EXPECT_THROW(space.check({{"BLOCK", 48}, {"ITEMS", 1}, {"VECTOR", 0}}, sizes, device), Error);
  EXPECT_THROW(space.variant_launch({{"BLOCK", 64}}, sizes, device), Error);
}

TEST_F(SaxpySpace, ConstraintsExcludingEverything) {
  const auto impossible = SearchSpace::load(kSpaces / "bad" / "impossible.json");
  try {
    impossible.enumerate(sizes, device);
    FAIL() << "expected a SpaceError";
  } catch (const SpaceError& error) {
    EXPECT_EQ(std::string(error.what()),
              (kSpaces / "bad" / "impossible.json").string() +
                  ": no configuration satisfies the conditions for problem ALIGN=4,N=4096 on device Test GPU "
                  "(sm_90); condition 'huge_tiles' rejected the most (34 of 48): an impossible demand, for "
                  "the tests");
  }
}

TEST_F(SaxpySpace, VariantLaunch) {
  const auto launch = space.variant_launch({{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}}, sizes, device);
  EXPECT_EQ(launch.kernel_name, "saxpy");
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{8, 1, 1}));
  EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(launch.dynamic_smem_bytes, 0u);
  ASSERT_EQ(launch.args.size(), 4u);
  EXPECT_EQ(launch.args[0].kind, ArgSpec::Kind::buffer);
  EXPECT_EQ(launch.args[0].name, "x");
  EXPECT_EQ(launch.args[0].dtype, DType::f32);
  EXPECT_EQ(launch.args[1].name, "y");
  EXPECT_EQ(launch.args[2].kind, ArgSpec::Kind::scalar);
  EXPECT_EQ(launch.args[2].dtype, DType::i32);
  EXPECT_EQ(launch.args[2].value, 4096);
  EXPECT_EQ(launch.args[3].dtype, DType::f32);
  EXPECT_EQ(launch.args[3].value, 0.25);

  const auto odd = space.variant_launch({{"BLOCK", 64}, {"ITEMS", 8}, {"VECTOR", 0}},
                                        space.resolve_problem("N=1000"), device);
  EXPECT_EQ(odd.grid[0], 2u);  // cdiv(1000, 512)
  EXPECT_EQ(odd.args[2].value, 1000);
}

TEST_F(SaxpySpace, ReferenceLaunchTakesItsOwnArgumentOrder) {
  const auto launch = space.reference_launch(space.resolve_problem("N=1000"), device);
  EXPECT_EQ(launch.kernel_name, "saxpy_ref");
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{4, 1, 1}));
  EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  ASSERT_EQ(launch.args.size(), 4u);
  EXPECT_EQ(launch.args[0].name, "n");
  EXPECT_EQ(launch.args[0].value, 1000);
  EXPECT_EQ(launch.args[1].value, 0.25);
  EXPECT_EQ(launch.args[2].name, "x");
  EXPECT_EQ(launch.args[2].kind, ArgSpec::Kind::buffer);
  EXPECT_EQ(launch.args[3].name, "y");
}

TEST_F(SaxpySpace, BuffersAndWork) {
  const auto buffers = space.buffers(sizes);
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].name, "x");
  EXPECT_EQ(buffers[0].count, 4096);
  EXPECT_TRUE(buffers[0].is_input);
  EXPECT_FALSE(buffers[0].is_output);
  EXPECT_EQ(buffers[0].fill.kind, FillSpec::Kind::random_uniform);
  EXPECT_EQ(buffers[0].fill.low, -2);
  EXPECT_EQ(buffers[1].name, "y");
  EXPECT_TRUE(buffers[1].is_input && buffers[1].is_output);
  EXPECT_EQ(buffers[1].fill.kind, FillSpec::Kind::constant);
  EXPECT_EQ(buffers[1].fill.value, 0.5);
  EXPECT_EQ(space.flops(sizes), 8192);
  EXPECT_EQ(space.bytes(sizes), 49152);
  EXPECT_EQ(space.flops(space.resolve_problem("N=10")), 20);
}

TEST(AttentionSpace, ExtraProblemIsOnePastTheLength) {
  const SearchSpace attention = SearchSpace::load("search_spaces/flash_attn_fwd_mma.json");
  const Sizes sizes = attention.resolve_problem("B=2,S=512,D=128");
  const auto extra = attention.extra_problems(sizes);
  ASSERT_EQ(extra.size(), 1u);
  Sizes expected = sizes;
  expected["S"] = 513;
  EXPECT_EQ(extra[0], expected);
}

TEST(AttentionSpace, SpecialFillsReachTheBuffers) {
  const SearchSpace attention = SearchSpace::load("search_spaces/flash_attn_fwd.json");
  const auto buffers = attention.buffers(attention.resolve_problem(""));
  ASSERT_EQ(buffers.size(), 4u);
  ASSERT_EQ(buffers[0].special_fills.size(), 1u);  // Q: large magnitudes
  EXPECT_EQ(buffers[0].special_fills[0].low, -10);
  EXPECT_EQ(buffers[0].special_fills[0].high, 10);
  ASSERT_EQ(buffers[1].special_fills.size(), 2u);  // K: large magnitudes, then zeros
  EXPECT_EQ(buffers[1].special_fills[1].kind, FillSpec::Kind::constant);
  EXPECT_EQ(buffers[1].special_fills[1].value, 0);
  EXPECT_TRUE(buffers[2].special_fills.empty());
}

// The decode space: the cache lengths fill the cache (the timed case), and its special rounds and the page
// table follow the problem's capacity; one split is one launch, more add the combine and their scratch.
TEST(DecodeSpace, FillsFollowTheCacheAndSplitsAddTheCombine) {
  const SearchSpace decode = SearchSpace::load("search_spaces/decode_attn.json");
  const Sizes sizes = decode.resolve_problem("B=2,HKV=2,G=4,SQ=3,SKV=1000,PAGED=1,PAGE=64");
  std::map<std::string, BufferSpec> buffers;
  for (auto& buffer : decode.buffers(sizes)) buffers[buffer.name] = buffer;
  const BufferSpec& lengths = buffers.at("cache_seqlens");
  EXPECT_EQ(lengths.count, 2);
  EXPECT_EQ(lengths.fill.kind, FillSpec::Kind::constant);
  EXPECT_EQ(lengths.fill.value, 1000);
  ASSERT_EQ(lengths.special_fills.size(), 3u);
  EXPECT_EQ(lengths.special_fills[0].low, 1);  // ragged
  EXPECT_EQ(lengths.special_fills[0].high, 1000);
  EXPECT_EQ(lengths.special_fills[1].high, 7);  // 2 * SQ + 1: queries that see no key
  EXPECT_EQ(lengths.special_fills[2].value, 0);
  const BufferSpec& table = buffers.at("block_table");
  EXPECT_EQ(table.count, 2 * 16);  // cdiv(1000, 64) pages a sequence
  EXPECT_EQ(table.fill.low, 0);
  EXPECT_EQ(table.fill.high, 2 * 16 - 1);
  EXPECT_EQ(buffers.at("k_cache").count, 2 * 16 * 64 * 2 * 128);
  EXPECT_EQ(buffers.at("o").count, 2 * 8 * 3 * 128);

  const auto extra = decode.extra_problems(sizes);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0].at("SKV"), 1037);
  std::map<std::string, BufferSpec> past;
  for (auto& buffer : decode.buffers(extra[0])) past[buffer.name] = buffer;
  EXPECT_EQ(past.at("cache_seqlens").fill.value, 1037);
  EXPECT_EQ(past.at("block_table").fill.high, 2 * 17 - 1);

  const DeviceInfo device = test_device();
  Config config{{"BLOCK_N", 64},   {"WARPS", 4},   {"STAGES", 3},  {"M_TILES", 1},
                {"NUM_SPLITS", 1}, {"COMBINE", 0}, {"L2_256B", 1}, {"PDL", 0}};
  ASSERT_TRUE(decode.check(config, sizes, device).valid) << decode.check(config, sizes, device).reason;
  const LaunchSpec one = decode.variant_launch(config, sizes, device);
  EXPECT_EQ(one.kernel_name, "decode_attn");
  EXPECT_EQ(one.grid, (std::array<std::uint32_t, 3>{1, 2, 2}));  // 12 rows: one 16-row tile
  EXPECT_TRUE(one.then.empty() && one.scratch.empty());
  config["NUM_SPLITS"] = 4;
  ASSERT_TRUE(decode.check(config, sizes, device).valid) << decode.check(config, sizes, device).reason;
  const LaunchSpec split = decode.variant_launch(config, sizes, device);
  EXPECT_EQ(split.kernel_name, "decode_attn_split");
  EXPECT_EQ(split.grid, (std::array<std::uint32_t, 3>{4, 2, 2}));
  ASSERT_EQ(split.then.size(), 1u);
  EXPECT_EQ(split.then[0].kernel_name, "decode_attn_combine");
  EXPECT_EQ(split.then[0].grid, (std::array<std::uint32_t, 3>{12, 1, 1}));  // 2 * 8 * 3 rows, 4 a block
  ASSERT_EQ(split.scratch.size(), 2u);
  EXPECT_EQ(split.scratch[0].count, 4 * 48 * 128);
  EXPECT_EQ(split.scratch[1].count, 4 * 48);
  EXPECT_EQ(decode.bytes(sizes), 2.0 * 2 * 2 * 1000 * 2 * 128 + 2.0 * 2 * 2 * 8 * 3 * 128);
}

TEST_F(SaxpySpace, CompileTimeConstants) {
  const Config config{{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}};
  EXPECT_EQ(space.compile_time_constants(config, space.resolve_problem("ALIGN=1")),
            (std::map<std::string, std::int64_t>{{"ALIGN", 1}, {"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}}));
  EXPECT_EQ(space.reference_constants(sizes), (std::map<std::string, std::int64_t>{{"ALIGN", 4}}));
}

TEST_F(SaxpySpace, ResolveProblemUsesTheFileSizes) {
  EXPECT_EQ(sizes, (Sizes{{"N", 4096}, {"ALIGN", 4}}));
  EXPECT_EQ(space.resolve_problem("N=100").at("N"), 100);
  EXPECT_THROW(space.resolve_problem("ALIGN=2"), Error);
  EXPECT_THROW(space.resolve_problem("M=2"), Error);
}

TEST_F(SaxpySpace, SizesMustMatchTheDeclaredOnes) {
  EXPECT_TRUE(contains(error_of([&] { space.buffers({{"N", 5}}); }), "the problem lacks size 'ALIGN'"));
  EXPECT_TRUE(contains(error_of([&] {
                         space.flops({{"N", 5}, {"ALIGN", 4}, {"M", 1}});
                       }),
                       "unknown problem size 'M'"));
}

TEST_F(SaxpySpace, SurvivesAMove) {
  SearchSpace moved = std::move(space);
  EXPECT_EQ(moved.enumerate(sizes, device).size(), 34u);
  EXPECT_EQ(moved.name(), "saxpy");
}

TEST_F(SaxpySpace, ConcurrentChecksAgree) {
  const auto expected = expected_configs(4096, 1024);
  const auto run = [&](bool* agree) {
    for (int round = 0; round < 20; ++round)
      for (const ParamValue block : {32, 1024})
        for (const ParamValue items : {1, 2, 4, 8}) {
          const Config config{{"BLOCK", block}, {"ITEMS", items}, {"VECTOR", 1}};
          const bool listed = std::find(expected.begin(), expected.end(), config) != expected.end();
          *agree = *agree && space.check(config, sizes, device).valid == listed;
        }
  };
  bool first = true, second = true;
  std::thread other(run, &first);
  run(&second);
  other.join();
  EXPECT_TRUE(first && second);
}

TEST(SearchSpace, DeviceVariables) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) {
    json["ConfigurationSpace"]["Conditions"] = nlohmann::ordered_json::array();
    json["ConfigurationSpace"]["Conditions"].push_back(
        {{"Name", "device"},
         {"Expression",
          "DEVICE_MAX_SMEM_PER_BLOCK == 232448 && DEVICE_SMEM_PER_SM == 233472 && DEVICE_REGS_PER_SM == "
          "65535 && "
          "DEVICE_REGS_PER_BLOCK == 65536 && DEVICE_MAX_THREADS_PER_BLOCK == 1024 && DEVICE_SM_COUNT == 132 "
          "&& "
          "DEVICE_L2_BYTES == 52428800 && DEVICE_CC == 90"}});
  });
  const auto space = SearchSpace::load(file);
  const Config config{{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}};
  DeviceInfo device = test_device();
  EXPECT_TRUE(space.check(config, space.resolve_problem(""), device).valid);
  device.cc_minor = 9;
  EXPECT_FALSE(space.check(config, space.resolve_problem(""), device).valid);
}

// A cache length drawn up to the cache's capacity: fill bounds and values are expressions of the sizes,
// evaluated for each problem; a range that comes out empty, or a tuning parameter in one, names its field.
TEST(SearchSpace, FillsAreExpressionsOfTheSizes) {
  TempSpaces temp;
  const auto space = SearchSpace::load(temp.write([](auto& json) {
    auto& x = json["KernelSpecification"]["Arguments"][0];
    x["FillRange"] = {0, "N - 1"};
    x["SpecialFills"] = {{{"FillType", "Constant"}, {"FillValue", "N / 2"}}};
  }));
  const auto buffers = space.buffers(space.resolve_problem("N=100"));
  EXPECT_EQ(buffers[0].fill.low, 0);
  EXPECT_EQ(buffers[0].fill.high, 99);
  ASSERT_EQ(buffers[0].special_fills.size(), 1u);
  EXPECT_EQ(buffers[0].special_fills[0].kind, FillSpec::Kind::constant);
  EXPECT_EQ(buffers[0].special_fills[0].value, 50);
  EXPECT_EQ(buffers[1].fill.value, 0.5);  // a number, as before

  const auto empty = SearchSpace::load(temp.write(
      [](auto& json) {
        json["KernelSpecification"]["Arguments"][0]["FillRange"] = {"N", 10};
      },
      "empty.json"));
  EXPECT_NO_THROW(empty.buffers(empty.resolve_problem("N=10")));
  try {
    empty.buffers(empty.resolve_problem("N=11"));
    FAIL() << "an empty range was accepted";
  } catch (const SpaceError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("KernelSpecification.Arguments[0].FillRange[0]: low 11 is above high 10"),
              std::string::npos)
        << error.what();
  }
  try {
    SearchSpace::load(temp.write(
        [](auto& json) {
          json["KernelSpecification"]["Arguments"][0]["FillRange"] = {0, "BLOCK"};
        },
        "parameter.json"));
    FAIL() << "a tuning parameter in a fill was accepted";
  } catch (const SpaceError& error) {
    EXPECT_NE(std::string(error.what()).find("FillRange[1]: 'BLOCK' is a tuning parameter"),
              std::string::npos)
        << error.what();
  }
}

TEST(SearchSpace, ConditionThatCannotBeEvaluated) {
  TempSpaces temp;
  const auto space = SearchSpace::load(temp.write([](auto& json) {
    json["ConfigurationSpace"]["Conditions"][0]["Expression"] = "64 % (ITEMS - 1) == 0";
  }));
  const auto check =
      space.check({{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}}, space.resolve_problem(""), test_device());
  EXPECT_FALSE(check.valid);
  EXPECT_EQ(check.condition, "vector_items");
  EXPECT_EQ(check.reason,
            "cannot be evaluated (an integer operation got a non-integer or a zero divisor); "
            "float4 accesses need ITEMS to be a multiple of 4");
}

TEST(SearchSpace, NonIntegerValuesNameTheirField) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) {
    json["KernelSpecification"]["GlobalSize"]["X"] = "N / TILE";
    json["KernelSpecification"]["Arguments"][0]["Size"] = "N - 5000";
    json["KernelSpecification"]["Arguments"][2]["Value"] = "N / 3";
  });
  const auto space = SearchSpace::load(file);
  const auto sizes = space.resolve_problem("N=1000");
  const Config config{{"BLOCK", 128}, {"ITEMS", 1}, {"VECTOR", 0}};
  EXPECT_EQ(error_of([&] { space.variant_launch(config, sizes, test_device()); }),
            file.string() +
                ": KernelSpecification.GlobalSize.X: evaluates to 7.8125, not an integer in [0, "
                "4294967295] (problem N=1000,ALIGN=4; config BLOCK=128,ITEMS=1,VECTOR=0)");
  EXPECT_TRUE(contains(error_of([&] { space.buffers(sizes); }),
                       ": KernelSpecification.Arguments[0].Size: evaluates to -4000, not an integer"));
  EXPECT_TRUE(
      contains(error_of([&] { space.reference_launch(sizes, test_device()); }),
               ": KernelSpecification.Arguments[2].Value: evaluates to 333.33333333333331, not an integer"));
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(SearchSpace, HashFollowsTheContentOfAllThreeFiles) {
  TempSpaces temp;
  for (const char* name : {"saxpy.json", "saxpy.cu", "saxpy_ref.cu"})
    std::filesystem::copy_file(kSpaces / name, temp.dir() / name);
  const std::string original = SearchSpace::load(kSpaces / "saxpy.json").hash();
  EXPECT_EQ(original.size(), 16u);
  EXPECT_EQ(SearchSpace::load(kSpaces / "saxpy.json").hash(), original);
  EXPECT_EQ(SearchSpace::load(temp.dir() / "saxpy.json").hash(), original);  // content, not location

  temp.write_text("saxpy.cu", read(kSpaces / "saxpy.cu") + "// edited\n");
  const std::string template_edit = SearchSpace::load(temp.dir() / "saxpy.json").hash();
  EXPECT_NE(template_edit, original);

  temp.write_text("saxpy_ref.cu", read(kSpaces / "saxpy_ref.cu") + "\n");
  const std::string reference_edit = SearchSpace::load(temp.dir() / "saxpy.json").hash();
  EXPECT_NE(reference_edit, template_edit);
  EXPECT_NE(reference_edit, original);

  temp.write_text("saxpy.json", read(kSpaces / "saxpy.json") + " ");
  EXPECT_NE(SearchSpace::load(temp.dir() / "saxpy.json").hash(), reference_edit);
}

// ~10,000 raw configs x 15 conditions: what enumerate() must finish in well under a second.
TEST(SearchSpace, EnumeratesTenThousandConfigsQuickly) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) {
    auto& space = json["ConfigurationSpace"];
    space["TuningParameters"] = nlohmann::ordered_json::array();
    for (const char* name : {"P0", "P1", "P2", "P3"})
      space["TuningParameters"].push_back({{"Name", name}, {"Values", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}});
    space["Conditions"] = nlohmann::ordered_json::array();
    for (int i = 0; i < 15; ++i)
      space["Conditions"].push_back(
          {{"Name", "c" + std::to_string(i)},
           {"Expression", "(P0 * P1 + P2 * " + std::to_string(i) +
                              " + cdiv(P3 * 64, P0)) % 97 != " + std::to_string(i) + " && SUM <= 40"}});
    json["Expressions"] = {{"SUM", "P0 + P1 + P2 + P3"},
                           {"TILE", "SUM * 16"},
                           {"BLOCKS", "cdiv(N, TILE)"},
                           {"REF_THREADS", "256"}};
    json["KernelSpecification"]["LocalSize"]["X"] = "P0 * 32";
  });
  const auto space = SearchSpace::load(file);
  ASSERT_EQ(space.total_configs(), 10000u);
  const auto start = std::chrono::steady_clock::now();
  const auto configs = space.enumerate(space.resolve_problem(""), test_device());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t expected = 0;
  for (int p0 = 1; p0 <= 10; ++p0)
    for (int p1 = 1; p1 <= 10; ++p1)
      for (int p2 = 1; p2 <= 10; ++p2)
        for (int p3 = 1; p3 <= 10; ++p3) {
          bool valid = true;
          for (int i = 0; i < 15; ++i)
            valid = valid && (p0 * p1 + p2 * i + (p3 * 64 + p0 - 1) / p0) % 97 != i;
          expected += valid;
        }
  EXPECT_EQ(configs.size(), expected);
  EXPECT_LT(seconds, 0.5);
  std::cout << "enumerate: " << configs.size() << " of 10000 configs in " << seconds * 1000 << " ms\n";
}

}  // namespace search_space_test
}  // namespace evotune
