// `evotune report SPACE`: the stored results of a space version and problem as one self-contained HTML page
// of plots and tables (docs/report.md), and optionally each plot as an SVG file. Needs no GPU.
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/output_file.hpp"
#include "cli/stored_space.hpp"
#include "core/error.hpp"
#include "report/report.hpp"

namespace evotune::cli {
namespace {

struct ReportCommandOptions {
  std::string space_file;
  std::string problem;
  std::string db = kDefaultDb;
  std::string output = "report.html";
  std::string svg_dir;
  std::string pair;
  int top = 10;
};

std::pair<std::string, std::string> parse_pair(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == text.size() ||
      text.find(',', comma + 1) != std::string::npos)
    throw Error("--pair takes two parameter names, e.g. --pair BLOCK_M,BLOCK_N (got '" + text + "')");
  return {text.substr(0, comma), text.substr(comma + 1)};
}

report::ReportData read_report_data(const StoredSpace& stored) {
  report::ReportData data;
  data.space_name = stored.space.name();
  data.space_hash = stored.space.hash();
  data.problem = stored.sizes;
  for (const auto& parameter : stored.space.parameters())
    data.parameters.push_back({parameter.name, parameter.values});
  data.runs = stored.store.runs_of(*stored.space_id, *stored.problem_id);
  data.measurements = stored.store.measurement_history(*stored.space_id, *stored.problem_id);
  data.problem_times = stored.store.ok_times_by_problem(*stored.space_id);
  // The newest run's reference-kernel time (runs from before schema version 5, and replays, have none).
  for (auto run = data.runs.rbegin(); run != data.runs.rend() && !data.reference_us; ++run)
    if (run->reference_ms) data.reference_us = *run->reference_ms * 1000.0;
  for (auto run = data.runs.rbegin(); run != data.runs.rend() && !data.baseline; ++run)
    data.baseline = stored.store.latest_baseline(*stored.space_id, *stored.problem_id, run->device_name);
  return data;
}

void run(const ReportCommandOptions& options) {
  const StoredSpace stored = open_stored_space(options.space_file, options.problem, options.db);
  if (stored.store.count_measurements(*stored.space_id, *stored.problem_id, std::nullopt) == 0)
    throw Error("no measurements of " + stored.space.name() + " (version " + stored.space.hash() +
                ") with problem " + key_value_text(stored.sizes) + " in " + options.db);
  report::ReportOptions report_options;
  if (!options.pair.empty()) report_options.pair = parse_pair(options.pair);
  report_options.top_k = options.top;
  const report::Report report = report::render_report(read_report_data(stored), report_options);

  // Everything is rendered before the first file is written: bad input leaves nothing behind.
  std::size_t svgs = 0;
  if (!options.svg_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.svg_dir, error);
    if (error) throw Error("cannot create " + options.svg_dir + ": " + error.message());
    for (const auto& plot : report.plots) {
      if (plot.svg.empty()) continue;
      write_output_file(std::filesystem::path(options.svg_dir) / (plot.id + ".svg"),
                        report::standalone_svg(plot));
      ++svgs;
    }
  }
  write_output_file(options.output, report.html);
  std::printf("wrote %s", options.output.c_str());
  if (svgs > 0) std::printf(" and %zu plots as SVG in %s", svgs, options.svg_dir.c_str());
  std::printf("\n");
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "report", "Write the stored results of a space and problem as one HTML page of plots and tables");
  auto options = std::make_shared<ReportCommandOptions>();
  command->add_option("space", options->space_file, "Search-space JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--db", options->db, "Results database")->capture_default_str();
  command->add_option("-o,--output", options->output, "HTML file to write")->capture_default_str();
  command->add_option("--svg", options->svg_dir, "Also write each plot as DIR/<plot>.svg");
  command->add_option("--pair", options->pair,
                      "Parameters of the heatmap, as A,B (default: the two most sensitive)");
  command->add_option("--top", options->top, "How many configs the top-K plot and table show")
      ->capture_default_str()
      ->check(positive());
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
