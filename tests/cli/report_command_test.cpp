// `evotune report` on a database tuned by replaying the recorded H100 sweep (evolve, then random): golden
// plots, the same bytes twice, axes on every plot, best-so-far ending where `evotune best` does.
//
// Golden files: tests/data/report/<plot>.svg hold the plots that depend only on what was stored, not on when
// (wall times and created_at differ between runs, so the wall-time plot and the page itself are checked for
// structure and determinism instead). After an intended change, regenerate them and review the diff:
//   EVOTUNE_UPDATE_GOLDEN=1 build/evotune_tests --gtest_filter='ReportCommand.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/analysis.hpp"
#include "report/svg_checks.hpp"
#include "report/text_format.hpp"
#include "space/search_space.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace report_command_test {

using store_test::read_bytes;

const std::string kSpace = "search_spaces/flash_attn_fwd.json";
const std::string kSweep = "tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json";
const std::filesystem::path kGoldenDir = "tests/data/report";
const std::vector<std::string> kGoldenPlots{"convergence-evaluations",
                                            "statuses-by-run",
                                            "statuses-by-value",
                                            "sensitivity",
                                            "pair-heatmap",
                                            "ecdf",
                                            "top-configs"};
// Drawn from this database, sorted: the golden ones and the wall-time plot; registers-spills (replay stores
// no compiles) and shape-slowdown (one problem) are not.
std::vector<std::string> drawn_plots() {
  auto plots = kGoldenPlots;
  plots.push_back("convergence-time");
  std::sort(plots.begin(), plots.end());
  return plots;
}

// "" when equal, else the first line that differs in each (whole files would flood the log).
std::string first_difference(const std::string& written, const std::string& golden) {
  if (written == golden) return "";
  std::istringstream a(written), b(golden);
  std::string line_a, line_b;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a || !more_b || line_a != line_b)
      return "line " + std::to_string(line) + ": written '" + (more_a ? line_a : "<end>") + "', golden '" +
             (more_b ? line_b : "<end>") + "'";
  }
}

class ReportCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new store_test::TempDir();
    for (const std::string strategy : {"evolve", "random"}) {
      const auto tune = test::run_evotune("tune " + kSpace + " --replay " + kSweep + " --strategy " +
                                          strategy + " --seed 1 --budget 200 --db " + db().string());
      ASSERT_EQ(tune.exit_code, 0) << tune.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static std::filesystem::path db() { return dir_->file("replayed.db"); }
  // Runs `evotune report` into dir/<name>.html and dir/<name>-svg/; returns its output.
  static test::CommandResult report(const std::string& name, const std::string& extra = "") {
    return test::run_evotune("report " + kSpace + " --db " + db().string() + " -o " +
                             dir_->file(name + ".html").string() + " --svg " +
                             dir_->file(name + "-svg").string() + extra);
  }
  static std::string svg(const std::string& name, const std::string& plot) {
    return read_bytes(dir_->file(name + "-svg") / (plot + ".svg"));
  }

  static inline store_test::TempDir* dir_ = nullptr;
};

TEST_F(ReportCommand, WritesThePageAndEachPlot) {
  const auto result = report("page");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "wrote " + dir_->file("page.html").string() + " and 8 plots as SVG in " +
                            dir_->file("page-svg").string() + "\n");
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(dir_->file("page-svg")))
    written.push_back(entry.path().stem().string());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, drawn_plots());
  const std::string html = read_bytes(dir_->file("page.html"));
  EXPECT_NE(html.find("No ok measurement has a compile record"), std::string::npos);
  EXPECT_NE(html.find("Only one problem of this space version has ok results"), std::string::npos);
}

TEST_F(ReportCommand, PlotsThatDependOnlyOnTheResultsMatchTheGoldenFiles) {
  ASSERT_EQ(report("golden").exit_code, 0);
  const bool update = std::getenv("EVOTUNE_UPDATE_GOLDEN") != nullptr;
  for (const auto& plot : kGoldenPlots) {
    const auto golden = kGoldenDir / (plot + ".svg");
    if (update) {
      std::filesystem::create_directories(kGoldenDir);
      store_test::write_bytes(golden, svg("golden", plot));
      continue;
    }
    EXPECT_EQ(first_difference(svg("golden", plot), read_bytes(golden)), "")
        << golden << " differs; if the change is intended, regenerate with EVOTUNE_UPDATE_GOLDEN=1 "
        << "build/evotune_tests --gtest_filter='ReportCommand.*' and review the diff";
  }
}

TEST_F(ReportCommand, SameDatabaseSameBytes) {
  ASSERT_EQ(report("first").exit_code, 0);
  ASSERT_EQ(report("second").exit_code, 0);
  EXPECT_EQ(read_bytes(dir_->file("first.html")), read_bytes(dir_->file("second.html")));
  for (const auto& plot : drawn_plots()) EXPECT_EQ(svg("first", plot), svg("second", plot)) << plot;
}

TEST_F(ReportCommand, EveryPlotHasBothAxesWithTickLabels) {
  ASSERT_EQ(report("axes").exit_code, 0);
  const std::string html = read_bytes(dir_->file("axes.html"));
  for (const auto& plot : drawn_plots()) {
    const std::string text = svg("axes", plot);
    EXPECT_EQ(report_test::axis_problems(text), std::vector<std::string>{}) << plot;
    EXPECT_NE(html.find(text.substr(text.find("<svg"))), std::string::npos) << plot << " is not in the page";
  }
}

TEST_F(ReportCommand, BestSoFarIsMonotoneAndEndsAtWhatBestPrints) {
  const auto best = test::run_evotune("best " + kSpace + " --db " + db().string() + " --json --top 1");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  const double best_us = nlohmann::json::parse(best.out).at(0).at("time_us").get<double>();

  const SearchSpace space = SearchSpace::load(kSpace);
  const Store store = Store::open_existing(db());
  const auto space_id = store.find_space(space.hash()).value();
  const auto problem_id = store.find_problem(space.resolve_problem("")).value();
  report::ReportData data;
  data.runs = store.runs_of(space_id, problem_id);
  data.measurements = store.measurement_history(space_id, problem_id);
  const auto curves = report::best_so_far(data);
  ASSERT_EQ(curves.size(), 2u);
  double final_best = curves.front().points.back().best_us;
  for (const auto& curve : curves) {
    for (std::size_t i = 1; i < curve.points.size(); ++i) {
      EXPECT_LE(curve.points[i].best_us, curve.points[i - 1].best_us);
      EXPECT_EQ(curve.points[i].evaluations, curve.points[i - 1].evaluations + 1);
    }
    final_best = std::min(final_best, curve.points.back().best_us);
  }
  EXPECT_EQ(final_best, best_us);

  ASSERT_EQ(report("best").exit_code, 0);
  EXPECT_NE(read_bytes(dir_->file("best.html")).find("Fastest: <b>" + report::time_text(best_us) + " µs</b>"),
            std::string::npos);
  EXPECT_NE(svg("best", "convergence-evaluations").find(">" + report::time_text(best_us) + "</text>"),
            std::string::npos);
}

// A GPU run stores the reference kernel's time (replays have none): the page states it and the best-so-far
// plots draw it as a dashed line.
TEST_F(ReportCommand, TheStoredReferenceTimeIsTheDashedLine) {
  ASSERT_EQ(report("page-before-reference").exit_code, 0);
  EXPECT_EQ(svg("page-before-reference", "convergence-evaluations").find("reference"), std::string::npos);

  const auto with_reference = dir_->file("with-reference.db");
  std::filesystem::copy_file(db(), with_reference, std::filesystem::copy_options::overwrite_existing);
  {
    Store store(with_reference);
    const auto runs = store.runs(0);
    ASSERT_FALSE(runs.empty());
    EXPECT_FALSE(runs.front().reference_ms);
    store.save_reference_time(runs.front().id, 0.0942);
    EXPECT_DOUBLE_EQ(*store.runs(1).front().reference_ms, 0.0942);
  }
  const auto result =
      test::run_evotune("report " + kSpace + " --db " + with_reference.string() + " -o " +
                        dir_->file("ref.html").string() + " --svg " + dir_->file("ref-svg").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string html = read_bytes(dir_->file("ref.html"));
  EXPECT_NE(html.find("Reference kernel: 94.20 µs"), std::string::npos);
  const std::string plot = read_bytes(dir_->file("ref-svg") / "convergence-evaluations.svg");
  EXPECT_NE(plot.find("reference 94.20 µs"), std::string::npos);
  EXPECT_NE(plot.find("stroke-dasharray"), std::string::npos);
}

TEST_F(ReportCommand, PairPicksTheHeatmapsParameters) {
  ASSERT_EQ(report("pair", " --pair WARPS,STAGES --top 3").exit_code, 0);
  EXPECT_NE(svg("pair", "pair-heatmap").find("Best time by WARPS and STAGES"), std::string::npos);
  EXPECT_NE(svg("pair", "top-configs").find("The 3 fastest configs"), std::string::npos);
}

}  // namespace report_command_test
}  // namespace evotune
