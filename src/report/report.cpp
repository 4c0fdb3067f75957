// The report page: a summary, then each plot in a section with its caption, the tables beside them.
#include "report/report.hpp"

#include <set>

#include "core/error.hpp"
#include "report/analysis.hpp"
#include "report/html_tables.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; font-size: 14px; color: #222; max-width: 1200px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
nav a { margin-right: 12px; }
figure { margin: 8px 0; overflow-x: auto; }
figcaption, .note { color: #555; max-width: 760px; margin-top: 4px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 12px; }
div.gpu { min-width: 21em; padding-left: 1em; text-indent: -1em; }
td.under { border-top: none; color: #555; }
)";

std::pair<std::string, std::string> heatmap_pair(const ReportData& data, const ReportOptions& options,
                                                 const std::vector<ParameterTimes>& ranked) {
  if (!options.pair) {
    if (ranked.size() < 2) return {};
    return {ranked[0].name, ranked[1].name};
  }
  std::string names;
  for (const auto& parameter : data.parameters) names += (names.empty() ? "" : ", ") + parameter.name;
  for (const std::string* name : {&options.pair->first, &options.pair->second}) {
    bool known = false;
    for (const auto& parameter : data.parameters) known = known || parameter.name == *name;
    if (!known)
      throw Error("--pair: " + data.space_name + " has no parameter '" + *name +
                  "' (its parameters: " + names + ")");
  }
  if (options.pair->first == options.pair->second)
    throw Error("--pair: name two different parameters, not " + options.pair->first + " twice");
  return *options.pair;
}

std::string summary(const ReportData& data) {
  std::set<std::string> devices;
  std::size_t ok = 0;
  for (const auto& row : data.measurements) {
    devices.insert(row.result.device_name);
    ok += row.result.status == Status::ok ? 1 : 0;
  }
  std::string device_text;
  for (const auto& device : devices) device_text += (device_text.empty() ? "" : ", ") + device;
  std::string html = "<p>Space version <code>" + escape_xml(data.space_hash) + "</code>, problem <code>" +
                     escape_xml(key_value_text(data.problem)) + "</code>" +
                     (devices.empty() ? "" : ", measured on " + escape_xml(device_text)) + ": " +
                     std::to_string(data.measurements.size()) + " measurements in " +
                     std::to_string(data.runs.size()) + " run(s), " + std::to_string(ok) + " ok, " +
                     std::to_string(data.measurements.size() - ok) + " failed.";
  const auto ranked = ranked_ok(data);
  if (!ranked.empty())
    html += " Fastest: <b>" + time_text(ranked.front()->result.timing->median_us) + " µs</b> (config " +
            std::to_string(ranked.front()->result.config_id) + ": <code>" +
            escape_xml(key_value_text(ranked.front()->result.params, ' ')) + "</code>).";
  html += data.reference_us ? " Reference kernel: " + time_text(*data.reference_us) + " µs."
                            : " No reference-kernel time is stored in this database.";
  if (data.baseline)
    html += " Baseline " + escape_xml(data.baseline->library) + ": " +
            time_text(comparable_us(*data.baseline, true)) + " µs (its heuristic's algorithm #" +
            std::to_string(data.baseline->best_index) +
            "; the first: " + time_text(data.baseline->heuristic_us) + " µs at the run's start).";
  return html + "</p>\n";
}

std::string figure(const Plot& plot) {
  if (plot.svg.empty()) return "<p class=\"note\">" + escape_xml(plot.note) + "</p>\n";
  return "<figure>\n" + plot.svg + "<figcaption>" + escape_xml(plot.caption) + "</figcaption>\n</figure>\n";
}

}  // namespace

Report render_report(const ReportData& data, const ReportOptions& options) {
  const auto parameters = parameter_times(data);
  const auto [x_parameter, y_parameter] = heatmap_pair(data, options, parameters);
  Report report;
  std::string nav, body;
  const auto add_section = [&](const std::string& id, const std::string& title, const std::string& html) {
    nav += "<a href=\"#" + escape_xml(id) + "\">" + escape_xml(title) + "</a>\n";
    body += "<section id=\"" + escape_xml(id) + "\">\n<h2>" + escape_xml(title) + "</h2>\n" + html +
            "</section>\n";
  };
  const auto add_plot = [&](Plot plot) {
    add_section(plot.id, plot.title, figure(plot));
    report.plots.push_back(std::move(plot));
  };
  add_plot(convergence_by_evaluations(data));
  add_plot(convergence_by_time(data));
  add_section("runs", "Runs", runs_table(data));
  add_plot(statuses_by_run(data));
  add_plot(statuses_by_value(parameters));
  add_section("failures", "Failures by reason", failures_table(data));
  add_plot(sensitivity(parameters));
  if (x_parameter.empty())
    add_plot({"pair-heatmap", "Best time by parameter pair", "", "", "The space has only one parameter."});
  else
    add_plot(pair_heatmap(data, x_parameter, y_parameter));
  add_plot(ok_time_ecdf(data));
  add_plot(top_configs(data, options.top_k));
  add_section("top-configs-table", "Fastest configs", top_configs_table(data, options.top_k));
  add_plot(registers_and_spills(data));
  add_plot(shape_slowdown(data));

  const std::string title = "evotune report: " + data.space_name + " " + key_value_text(data.problem);
  report.html =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>" +
      escape_xml(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
      escape_xml(title) + "</h1>\n" + summary(data) + "<nav>\n" + nav + "</nav>\n" + body +
      "</body>\n</html>\n";
  return report;
}

std::string standalone_svg(const Plot& plot) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + plot.svg;
}

}  // namespace evotune::report
