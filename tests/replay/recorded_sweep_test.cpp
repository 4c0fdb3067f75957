// Sweep files: round trip, one sorted result per line, same bytes every time, and one-line errors naming the
// field of a malformed file.
#include "replay/recorded_sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/core_fixture.hpp"
#include "core/error.hpp"
#include "replay/sweep_fixture.hpp"
#include "store/store_fixture.hpp"

namespace evotune {
namespace recorded_sweep_test {

using replay_test::small_sweep;
using store_test::read_bytes;
using store_test::TempDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines between `"results": [` and the closing `  ]`.
std::vector<std::string> result_lines(const std::string& text) {
  const auto lines = lines_of(text);
  const auto open = std::find(lines.begin(), lines.end(), "  \"results\": [");
  const auto close = std::find(open, lines.end(), "  ]");
  EXPECT_NE(close, lines.end());
  return {open + 1, close};
}

TEST(SweepFile, SaveThenLoadGivesTheSameSweep) {
  TempDir dir;
  const RecordedSweep sweep = small_sweep();
  save_sweep(sweep, dir.file("sweep.json"));
  const RecordedSweep loaded = load_sweep(dir.file("sweep.json"));
  EXPECT_EQ(loaded.space_name, sweep.space_name);
  EXPECT_EQ(loaded.space_hash, sweep.space_hash);
  EXPECT_EQ(loaded.problem, sweep.problem);
  EXPECT_EQ(loaded.nvrtc_version, sweep.nvrtc_version);
  core_test::expect_same_device(loaded.device, sweep.device);
  auto expected = sweep.results;
  std::sort(expected.begin(), expected.end(),
            [](const auto& a, const auto& b) { return canonical_json(a.params) < canonical_json(b.params); });
  ASSERT_EQ(loaded.results.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    replay_test::expect_same_result(loaded.results[i], expected[i]);
  EXPECT_EQ(read_bytes(dir.file("sweep.json")), sweep_text(loaded));
}

TEST(SweepFile, HowAResultWasTimedIsKeptWhereKnown) {
  RecordedSweep sweep = small_sweep();
  sweep.results[0].timing->method = TimingMethod{true, 20, false};
  sweep.results[2].timing->method = TimingMethod{false, 0, true, "cuStreamEndCapture: invalidated"};
  const RecordedSweep loaded = parse_sweep(sweep_text(sweep), "sweep.json");
  ASSERT_EQ(loaded.results.size(), 4u);
  for (const RecordedResult& result : loaded.results) {
    if (result.params == sweep.results[0].params) {
      replay_test::expect_same_result(result, sweep.results[0]);
    } else if (result.params == sweep.results[2].params) {
      replay_test::expect_same_result(result, sweep.results[2]);
    } else if (result.params == sweep.results[3].params) {
      EXPECT_FALSE(result.timing->method);
    }
  }
  EXPECT_NE(sweep_text(sweep).find(R"("method":{"mode":"graph","graph_executions":20,"flush_l2":false})"),
            std::string::npos);
}

// The recorded sweep was written by `evotune record`: reading it and writing it again gives its bytes.
TEST(SweepFile, ARecordedSweepReadsAndWritesBackByteForByte) {
  const std::string file = "tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json";
  EXPECT_EQ(sweep_text(load_sweep(file)), read_bytes(file));
}

TEST(SweepFile, OneResultPerLineSortedByCanonicalParams) {
  const std::string text = sweep_text(small_sweep());
  const auto lines = result_lines(text);
  ASSERT_EQ(lines.size(), 4u);
  std::vector<std::string> params;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    ASSERT_EQ(line.rfind("    {\"params\":", 0), 0u) << line;
    EXPECT_EQ(line.back() == ',', i + 1 < lines.size()) << line;
    if (line.back() == ',') line.pop_back();
    params.push_back(nlohmann::json::parse(line)["params"].dump());
  }
  EXPECT_TRUE(std::is_sorted(params.begin(), params.end()));
  EXPECT_EQ(params.front(), "{\"BLOCK\":1024,\"ITEMS\":8}");
  EXPECT_NE(lines.front().find(R"("message":"too many \"threads\"\nsecond line")"), std::string::npos);
}

TEST(SweepFile, HeaderAndNumbersHaveOneStableForm) {
  const std::string text = sweep_text(small_sweep());
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[0], "{");
  EXPECT_EQ(lines[1], "  \"format\": \"evotune-sweep-v1\",");
  EXPECT_EQ(lines[2], "  \"space\": \"tiny\",");
  EXPECT_EQ(lines[3], "  \"space_hash\": \"0123456789abcdef\",");
  EXPECT_EQ(lines[4], "  \"problem\": {\"ALIGN\":4,\"N\":4096},");
  EXPECT_EQ(lines[5].rfind("  \"device\": {\"name\":\"NVIDIA H100 80GB HBM3\",\"arch\":\"sm_90\",", 0), 0u);
  EXPECT_EQ(lines[6], "  \"nvrtc_version\": \"12.8\",");
  EXPECT_EQ(
      result_lines(text)[1],
      R"(    {"params":{"BLOCK":128,"ITEMS":1},"status":"ok","timing":{"median_us":7.25,"min_us":6.34375,)"
      R"("mean_us":7.4765625,"stddev_us":0.25,"p20_us":6.796875,"p80_us":8.15625,"samples":50}},)");
  EXPECT_NE(text.find("\"median_us\":0.30000000000000004,"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 6), "  ]\n}\n");
}

TEST(SweepFile, SameSweepSameBytesInAnyOrder) {
  RecordedSweep sweep = small_sweep();
  const std::string first = sweep_text(sweep);
  std::reverse(sweep.results.begin(), sweep.results.end());
  EXPECT_EQ(sweep_text(sweep), first);
  EXPECT_EQ(sweep_text(parse_sweep(first, "sweep.json")), first);
}

TEST(SweepFile, EmptyResultsRoundTrip) {
  RecordedSweep sweep = small_sweep();
  sweep.results.clear();
  EXPECT_TRUE(parse_sweep(sweep_text(sweep), "empty.json").results.empty());
}

TEST(SweepFile, SavingAConfigTwiceOrANonFiniteTimeIsAnError) {
  RecordedSweep twice = small_sweep();
  twice.results.push_back(twice.results.front());
  EXPECT_THROW(sweep_text(twice), Error);
  RecordedSweep infinite = small_sweep();
  infinite.results.front().timing->median_us = std::numeric_limits<double>::infinity();
  EXPECT_THROW(sweep_text(infinite), Error);
}

TEST(SweepFile, MissingDeviceLimitsComeFromTheArch) {
  auto document = nlohmann::ordered_json::parse(sweep_text(small_sweep()));
  for (const char* limit : {"max_threads_per_block", "smem_per_sm", "regs_per_block", "regs_per_sm"})
    document["device"].erase(limit);
  const DeviceInfo device = parse_sweep(document.dump(), "sweep.json").device;
  EXPECT_EQ(device.max_threads_per_block, 1024);
  EXPECT_EQ(device.smem_per_sm, 228 * 1024);
  EXPECT_EQ(device.regs_per_sm, 64 * 1024);
  EXPECT_EQ(device.name, "NVIDIA H100 80GB HBM3");
}

TEST(SweepFile, OfflineLimitsFillOnlyWhatIsMissing) {
  DeviceInfo device;
  device.cc_major = 8;
  device.cc_minor = 0;
  device.sm_count = 7;
  const DeviceInfo filled = with_offline_limits(device);
  EXPECT_EQ(filled.sm_count, 7);
  EXPECT_EQ(filled.max_smem_per_block, 163 * 1024);
  device.cc_major = 12;
  EXPECT_EQ(with_offline_limits(device).max_smem_per_block, 0);  // no limits known for sm_120
}

struct Malformed {
  std::string what;
  std::function<void(nlohmann::ordered_json&)> edit;
  std::string field;
};

TEST(SweepFile, MalformedFilesGiveOneLineNamingTheFileAndField) {
  using json = nlohmann::ordered_json;
  // Sorted, the results are: [0] BLOCK 1024 (resource_error), [1] BLOCK 128, [2] BLOCK 256, [3] BLOCK 64.
  const std::vector<Malformed> cases{
      {"format tag", [](json& j) { j["format"] = "evotune-sweep-v0"; },
       "format: expected \"evotune-sweep-v1\""},
      {"no format", [](json& j) { j.erase("format"); }, "not a recorded sweep (no \"format\""},
      {"no space hash", [](json& j) { j.erase("space_hash"); }, "space_hash: missing"},
      {"unknown field", [](json& j) { j["extra"] = 1; }, "extra: unknown field"},
      {"problem value", [](json& j) { j["problem"]["N"] = "big"; }, "problem.N: expected an integer"},
      {"device name", [](json& j) { j["device"].erase("name"); }, "device.name: missing"},
      {"device sm_count", [](json& j) { j["device"]["sm_count"] = 1.5; },
       "device.sm_count: expected an integer"},
      {"device arch", [](json& j) { j["device"]["arch"] = "sm_80"; }, "device.arch: 'sm_80' does not match"},
      {"results type", [](json& j) { j["results"] = json::object(); },
       "results: expected a list, got an object"},
      {"result type", [](json& j) { j["results"][2] = 3; }, "results[2]: expected an object, got 3"},
      {"status", [](json& j) { j["results"][1]["status"] = "fine"; },
       "results[1].status: unknown status 'fine'"},
      {"param value", [](json& j) { j["results"][0]["params"]["BLOCK"] = 1.5; },
       "results[0].params.BLOCK: expected an integer"},
      {"timing value", [](json& j) { j["results"][2]["timing"]["median_us"] = "fast"; },
       "results[2].timing.median_us: expected a number"},
      {"samples", [](json& j) { j["results"][2]["timing"]["samples"] = -1; }, "results[2].timing.samples"},
      {"ok without timing", [](json& j) { j["results"][3].erase("timing"); }, "results[3].timing: missing"},
      {"failure with timing", [](json& j) { j["results"][0]["timing"] = j["results"][1]["timing"]; },
       "results[0].timing: only ok results have a timing"},
      {"listed twice", [](json& j) { j["results"][3]["params"] = j["results"][1]["params"]; },
       "results[3].params: {\"BLOCK\":128,\"ITEMS\":1} is listed twice"},
      {"message type", [](json& j) { j["results"][0]["message"] = 5; },
       "results[0].message: expected a string"},
  };
  const std::string good = sweep_text(small_sweep());
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.what);
    auto document = json::parse(good);
    bad.edit(document);
    try {
      parse_sweep(document.dump(), "runs/bad.json");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("runs/bad.json: ", 0), 0u) << message;
      EXPECT_NE(message.find(bad.field), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(SweepFile, NotJsonOrMissingFileNamesTheFile) {
  try {
    parse_sweep("{\"format\": ", "half.json");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("half.json: not valid JSON", 0), 0u) << e.what();
  }
  EXPECT_THROW(load_sweep("/nonexistent/sweep.json"), Error);
}

// A file that is no sweep at all (a search space passed to --replay) is named as such, with what writes one.
TEST(SweepFile, ASearchSpaceIsNotTakenForASweep) {
  std::ifstream file("tests/data/spaces/saxpy.json");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  for (const std::string& document : {text, std::string("[1, 2]")}) {
    try {
      parse_sweep(document, "space.json");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(
          std::string(e.what()),
          "space.json: not a recorded sweep (no \"format\": \"evotune-sweep-v1\"; `evotune record` writes "
          "one)");
    }
  }
}

}  // namespace recorded_sweep_test
}  // namespace evotune
