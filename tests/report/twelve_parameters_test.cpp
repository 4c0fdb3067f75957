// The report of a space of twelve parameters (the wgmma space's), a reference kernel 48 times slower than
// the best and two GPUs' NVML states: parameter names clear of each other, the reference written at the
// axis's edge instead of squashing the curves, a line per GPU state; then the page as headless Chromium
// draws it against tests/data/report/twelve-parameters.png (skipped, saying why, without Chromium or
// python3). After an intended change to the page: EVOTUNE_UPDATE_GOLDEN=1 build/evotune_tests
// --gtest_filter='TwelveParameters.*', then look at the new PNG.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "report/report.hpp"
#include "report/report_data_fixture.hpp"
#include "store/store_fixture.hpp"

namespace evotune::report {
namespace twelve_parameters_test {

const std::filesystem::path kGolden = "tests/data/report/twelve-parameters.png";

// The wgmma space's parameters and values (search_spaces/flash_attn_fwd_wgmma.json).
const std::vector<ReportParameter> kParameters{{"CONSUMER_WARPGROUPS", {1, 2, 3}},
                                               {"BLOCK_N", {64, 96, 128, 176}},
                                               {"STAGES", {1, 2, 3, 4}},
                                               {"INTRA_WG_OVERLAP", {0, 1}},
                                               {"WARP_SPECIALIZE", {0, 1}},
                                               {"TMA_LOADS", {0, 1}},
                                               {"TMA_STORE", {0, 1}},
                                               {"PERSISTENT", {0, 1}},
                                               {"REG_SPLIT", {0, 1, 2}},
                                               {"LONGEST_FIRST", {0, 1}},
                                               {"CLUSTER", {1, 2}},
                                               {"PINGPONG", {0, 1}}};

// Two runs of 150 measurements each: times of 36 µs and up, made from per-value factors, a few failures.
ReportData twelve_parameter_data() {
  ReportData data = report_test::report_data();
  data.space_name = "flash_attn_fwd_wgmma";
  data.problem = {{"B", 8}, {"H", 16}, {"S", 4096}, {"D", 64}, {"CAUSAL", 0}};
  data.parameters = kParameters;
  data.runs[0].gpu_state_start =
      R"([{"uuid":"GPU-1","pci_bus_id":"0","sm_clock_mhz":1980,"max_sm_clock_mhz":1980,"memory_clock_mhz":2619,)"
      R"("max_memory_clock_mhz":2619,"power_mw":202000,"power_limit_mw":700000,"temperature_c":41,"ecc":true,)"
      R"("mig":false,"clock_reasons":0},{"uuid":"GPU-2","pci_bus_id":"1","sm_clock_mhz":1980,)"
      R"("max_sm_clock_mhz":1980,"power_mw":96000,"power_limit_mw":700000,"temperature_c":35,"clock_reasons":1}])";
  data.runs[0].gpu_state_end =
      R"([{"uuid":"GPU-1","pci_bus_id":"0","sm_clock_mhz":1845,"max_sm_clock_mhz":1980,"memory_clock_mhz":2619,)"
      R"("max_memory_clock_mhz":2619,"power_mw":689000,"power_limit_mw":700000,"temperature_c":69,"ecc":true,)"
      R"("mig":false,"clock_reasons":4},{"uuid":"GPU-2","pci_bus_id":"1","sm_clock_mhz":1755,)"
      R"("max_sm_clock_mhz":1980,"power_mw":701000,"power_limit_mw":700000,"temperature_c":74,"clock_reasons":36}])";
  data.measurements.clear();
  data.problem_times.clear();
  std::uint64_t state = 12;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::int64_t id = 1; id <= 300; ++id) {
    const std::int64_t run = id <= 150 ? 1 : 2;
    Config config;
    double us = 36;
    for (std::size_t p = 0; p < kParameters.size(); ++p) {
      const auto& values = kParameters[p].values;
      const std::size_t pick = next() % values.size();
      config[kParameters[p].name] = values[pick];
      us *= 1 + (0.02 + 0.05 * static_cast<double>(p % 4)) * static_cast<double>(pick);
    }
    // The first run converges: its later proposals lean fast.
    if (run == 1) us = 36 + (us - 36) * (1.0 - 0.9 * static_cast<double>(id) / 150);
    Status status = Status::ok;
    if (config["CLUSTER"] == 2 && config["PERSISTENT"] == 1) status = Status::launch_error;
    if (config["STAGES"] == 4 && config["BLOCK_N"] == 176) status = Status::resource_error;
    data.measurements.push_back(report_test::measurement(
        id, run, config, status, us, 0.35 * static_cast<double>(run == 1 ? id : id - 150)));
    const auto& row = data.measurements.back();
    if (row.result.timing)
      data.problem_times.push_back({data.problem, id, config, row.result.timing->median_us});
  }
  data.reference_us = 1750;
  return data;
}

const Plot& plot_of(const Report& report, const std::string& id) {
  for (const auto& plot : report.plots)
    if (plot.id == id) return plot;
  throw std::runtime_error("no plot " + id);
}

// The bold texts of an SVG (the group names under a banded axis) with their x and y.
struct Label {
  double x, y;
  std::string text;
};
std::vector<Label> bold_labels(const std::string& svg) {
  static const std::regex bold(
      R"re(<text x="([-\d.]+)" y="([-\d.]+)" text-anchor="middle" font-weight="bold">([^<]*)</text>)re");
  std::vector<Label> labels;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bold); it != std::sregex_iterator(); ++it)
    labels.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[3]});
  return labels;
}

// Bold capitals at 11 px: about 8 px a character in DejaVu Sans Bold and Liberation Sans Bold (whose
// capitals average 0.72 em); the screenshot test below checks how they really come out.
double bold_width(const std::string& text) { return 8.0 * static_cast<double>(text.size()); }

TEST(TwelveParameters, ParameterNamesUnderTheAxisDoNotOverlap) {
  const Report report = render_report(twelve_parameter_data(), {});
  for (const char* id : {"sensitivity", "statuses-by-value"}) {
    SCOPED_TRACE(id);
    const auto labels = bold_labels(plot_of(report, id).svg);
    ASSERT_EQ(labels.size(), kParameters.size());
    for (std::size_t a = 0; a < labels.size(); ++a)
      for (std::size_t b = a + 1; b < labels.size(); ++b) {
        if (std::abs(labels[a].y - labels[b].y) > 12) continue;  // different rows
        const double gap = std::abs(labels[a].x - labels[b].x) -
                           (bold_width(labels[a].text) + bold_width(labels[b].text)) / 2;
        EXPECT_GT(gap, 0) << labels[a].text << " and " << labels[b].text << " overlap";
      }
  }
}

TEST(TwelveParameters, AFarReferenceIsWrittenAtTheEdgeAndLeavesTheAxisToTheCurves) {
  const Report report = render_report(twelve_parameter_data(), {});
  for (const char* id : {"convergence-evaluations", "convergence-time"}) {
    SCOPED_TRACE(id);
    const std::string& svg = plot_of(report, id).svg;
    EXPECT_NE(svg.find(">reference kernel 1750 µs ("), std::string::npos) << svg;
    EXPECT_NE(svg.find("× the best), above this axis</text>"), std::string::npos);
    EXPECT_NE(svg.find("reference 1750 µs (above)"), std::string::npos) << "in the legend";
    // No tick label of the y axis reaches 1000 µs: the curves keep the axis.
    const std::string y_axis = svg.substr(svg.find("<g class=\"axis y\">"));
    EXPECT_EQ(y_axis.find(">1000<"), std::string::npos) << y_axis.substr(0, 2000);
  }
  ReportData near = twelve_parameter_data();
  near.reference_us = 60;  // within the curves' reach: drawn to scale, as before
  const std::string& svg = plot_of(render_report(near, {}), "convergence-evaluations").svg;
  EXPECT_EQ(svg.find("above this axis"), std::string::npos);
  EXPECT_NE(svg.find("reference 60.00 µs"), std::string::npos);
}

TEST(TwelveParameters, GpuStatesAreALineEachWithTheFullStateInTheTooltip) {
  const Report report = render_report(twelve_parameter_data(), {});
  for (const char* line :
       {">GPU 0 start: 1980 MHz, 41 C, 202/700 W</div>", ">GPU 1 start: 1980 MHz, 35 C, 96/700 W</div>",
        ">GPU 0 end: 1845 MHz, 69 C, 689/700 W, held down: sw_power_cap</div>",
        ">GPU 1 end: 1755 MHz, 74 C, 701/700 W, held down: sw_power_cap,sw_thermal</div>"})
    EXPECT_NE(report.html.find(line), std::string::npos) << line;
  EXPECT_NE(
      report.html.find("title=\"SM 1845/1980 MHz, memory 2619/2619 MHz, 69 C, 689/700 W, ECC on, MIG off, "
                       "clocks: sw_power_cap\""),
      std::string::npos);
}

// Headless Chromium's screenshot of the page, compared with the golden one by
// tests/report/compare_screenshot.py (both reduced to 4x4-pixel grey averages, so font anti-aliasing
// differences stay under its thresholds).
TEST(TwelveParameters, PageMatchesTheGoldenScreenshot) {
  std::string browser;
  for (const char* name : {"chromium", "chromium-browser"})
    if (browser.empty() && std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0)
      browser = name;
  if (browser.empty()) GTEST_SKIP() << "Chromium is not installed (Debian package chromium)";
  if (std::system("command -v python3 >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 is not installed (the PNG comparison is a Python script)";
  const store_test::TempDir dir;
  store_test::write_bytes(dir.file("report.html"), render_report(twelve_parameter_data(), {}).html);
  const std::string shot = dir.file("page.png").string();
  // No network, no GPU, no sandbox (CI containers have no user namespaces); its D-Bus complaints go to the
  // log.
  const std::string render = browser + " --headless --disable-gpu --no-sandbox --hide-scrollbars " +
                             "--window-size=1280,3600 --screenshot=" + shot + " file://" +
                             dir.file("report.html").string() + " >" + dir.file("chromium.log").string() +
                             " 2>&1";
  ASSERT_EQ(std::system(render.c_str()), 0) << "see " << dir.file("chromium.log");
  ASSERT_TRUE(std::filesystem::exists(shot)) << "Chromium wrote no screenshot";
  if (const char* keep = std::getenv("EVOTUNE_KEEP_SCREENSHOT"))
    std::filesystem::copy_file(shot, keep, std::filesystem::copy_options::overwrite_existing);
  const bool update = std::getenv("EVOTUNE_UPDATE_GOLDEN") != nullptr;
  const std::string compare = "python3 tests/report/compare_screenshot.py " + shot + " " + kGolden.string() +
                              (update ? " --update" : "") + " >" + dir.file("compare.log").string() + " 2>&1";
  const int status = std::system(compare.c_str());
  std::ifstream log(dir.file("compare.log"));
  const std::string said((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << said << "if the change is intended: EVOTUNE_UPDATE_GOLDEN=1 build/evotune_tests "
                       << "--gtest_filter='TwelveParameters.*', and look at " << kGolden;
  std::printf("%s", said.c_str());
}

}  // namespace twelve_parameters_test
}  // namespace evotune::report
