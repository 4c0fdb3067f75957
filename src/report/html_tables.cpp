// XHTML tables: every cell escaped, numbers right-aligned, rows in a fixed order.
#include "report/html_tables.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/core_json.hpp"
#include "core/error.hpp"
#include "core/gpu_state.hpp"
#include "report/analysis.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

class HtmlTable {
 public:
  explicit HtmlTable(const std::vector<std::string>& headers) {
    html_ = "<table>\n<thead><tr>";
    for (const auto& header : headers) html_ += "<th>" + escape_xml(header) + "</th>";
    html_ += "</tr></thead>\n<tbody>\n";
  }
  HtmlTable& row() {
    html_ += in_row_ ? "</tr>\n<tr>" : "<tr>";
    in_row_ = true;
    return *this;
  }
  HtmlTable& text(const std::string& content) { return cell(escape_xml(content), ""); }
  HtmlTable& number(const std::string& content) { return cell(escape_xml(content), " class=\"num\""); }
  HtmlTable& code(const std::string& content) { return cell("<code>" + escape_xml(content) + "</code>", ""); }
  HtmlTable& markup(const std::string& xhtml) { return cell(xhtml, ""); }  // already escaped
  // A row of one cell across all `columns`, for a long text under the row before it.
  HtmlTable& spanning(const std::string& xhtml, std::size_t columns) {
    row();
    return cell(xhtml, (" colspan=\"" + std::to_string(columns) + "\" class=\"under\"").c_str());
  }
  std::string finish() {
    if (in_row_) html_ += "</tr>\n";
    return html_ + "</tbody>\n</table>\n";
  }

 private:
  HtmlTable& cell(const std::string& html, const char* attributes) {
    html_ += "<td" + std::string(attributes) + ">" + html + "</td>";
    return *this;
  }
  std::string html_;
  bool in_row_ = false;
};

std::string or_dash(const std::string& text) { return text.empty() ? "–" : text; }

// "CUDA events, 3 warm-up + 30 timed launches, L2 flushed before each, ..." from runs.timing; "–" when none.
std::string timing_text(const RunSummary& run) {
  if (run.timing.empty()) return "–";
  try {
    return describe_timing(nlohmann::json::parse(run.timing));
  } catch (const std::exception&) {
    return "unreadable";
  }
}

// The figures that say whether a GPU ran at full speed: "1845 MHz, 71 C, 689/700 W, held down: sw_power_cap".
std::string gpu_state_brief(const GpuState& s) {
  std::vector<std::string> parts;
  if (s.sm_clock_mhz) parts.push_back(std::to_string(*s.sm_clock_mhz) + " MHz");
  if (s.temperature_c) parts.push_back(std::to_string(*s.temperature_c) + " C");
  const auto watts = [](const std::optional<unsigned>& mw) {
    return mw ? std::to_string((*mw + 500) / 1000) : "?";
  };
  if (s.power_mw || s.power_limit_mw)
    parts.push_back(watts(s.power_mw) + "/" + watts(s.power_limit_mw) + " W");
  if (s.clock_reasons && (*s.clock_reasons & kThrottleReasons))
    parts.push_back("held down: " + throttle_text(*s.clock_reasons));
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text.empty() ? "no figures" : text;
}

// One line per GPU at the run's start and end, the rest of what NVML said in the line's tooltip:
// "start: 1980 MHz, 41 C, 202/700 W" over "end: 1845 MHz, 69 C, 689/700 W, held down: sw_power_cap"; "–"
// when none was stored. (As one run of text, the cell of a two-GPU run was a wall of ten clauses a GPU.) The
// page styles each line with a hanging indent, so a line that wraps still reads as one.
std::string gpu_states_cell(const RunSummary& run) {
  std::string html;
  for (const auto& [moment, states_json] :
       {std::pair<const char*, const std::string&>{"start", run.gpu_state_start},
        std::pair<const char*, const std::string&>{"end", run.gpu_state_end}}) {
    if (states_json.empty()) continue;
    try {
      const nlohmann::json states = nlohmann::json::parse(states_json);
      if (!states.is_array()) throw Error("not an array");
      for (std::size_t i = 0; i < states.size(); ++i) {
        const GpuState state = gpu_state_from_json(states[i]);
        const std::string who = states.size() > 1 ? "GPU " + std::to_string(i) + " " + moment : moment;
        html += "<div class=\"gpu\" title=\"" + escape_xml(describe(state)) + "\">" +
                escape_xml(who + ": " + gpu_state_brief(state)) + "</div>";
      }
    } catch (const std::exception&) {
      html += "<div class=\"gpu\">" + escape_xml(std::string(moment) + ": unreadable") + "</div>";
    }
  }
  return html.empty() ? "–" : html;
}

}  // namespace

std::string top_configs_table(const ReportData& data, int top_k) {
  std::vector<std::string> headers{"rank", "config"};
  for (const auto& parameter : data.parameters) headers.push_back(parameter.name);
  for (const char* header : {"median µs", "p20 µs", "p80 µs", "timing", "TFLOP/s", "registers", "run"})
    headers.push_back(header);
  HtmlTable table(headers);
  const auto ranked = ranked_ok(data);
  for (std::size_t i = 0; i < ranked.size() && i < static_cast<std::size_t>(top_k); ++i) {
    const StoredMeasurement& row = *ranked[i];
    table.row().number(std::to_string(i + 1)).number(std::to_string(row.result.config_id));
    for (const auto& parameter : data.parameters) {
      const auto value = row.result.params.find(parameter.name);
      table.number(value == row.result.params.end() ? "–" : std::to_string(value->second));
    }
    const TimingStats& timing = *row.result.timing;
    table.number(time_text(timing.median_us))
        .number(time_text(timing.p20_us))
        .number(time_text(timing.p80_us));
    table.text(timing.method ? describe(*timing.method) : "–");
    table.number(fixed(row.result.tflops, 1));
    table.number(row.compiled ? std::to_string(row.result.registers) : "–");
    table.number(std::to_string(row.run_id));
  }
  return table.finish();
}

std::string failures_table(const ReportData& data) {
  std::map<std::pair<Status, std::string>, std::vector<std::int64_t>> groups;
  for (const auto& row : data.measurements)
    if (row.result.status != Status::ok)
      groups[{row.result.status, row.result.message}].push_back(row.result.config_id);
  if (groups.empty()) return "<p>No failures: every measured config ran and matched the reference.</p>\n";
  std::vector<std::tuple<std::size_t, Status, std::string, const std::vector<std::int64_t>*>> ordered;
  for (const auto& [key, configs] : groups)
    ordered.emplace_back(configs.size(), key.first, key.second, &configs);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  HtmlTable table({"status", "reason", "count", "configs"});
  constexpr std::size_t kListed = 5;
  for (const auto& [count, status, message, configs] : ordered) {
    std::string ids;
    for (std::size_t i = 0; i < configs->size() && i < kListed; ++i)
      ids += (i ? ", " : "") + std::to_string((*configs)[i]);
    if (configs->size() > kListed) ids += ", …";
    table.row()
        .text(std::string(to_string(status)))
        .code(or_dash(message))
        .number(std::to_string(count))
        .text(ids);
  }
  return table.finish();
}

std::string runs_table(const ReportData& data) {
  if (data.runs.empty()) return "<p>No runs of this space version and problem.</p>\n";
  // How the run timed its variants and its command line, the longest texts, go in a row of their own under
  // the run: as columns they pushed the table past the page's width and squeezed the others into walls of
  // text.
  const std::vector<std::string> headers{
      "run",     "strategy", "seed",   "budget", "status", "evaluated",       "failed",
      "started", "finished", "device", "driver", "NVRTC",  "GPU state (NVML)"};
  HtmlTable table(headers);
  for (const auto& run : data.runs) {
    table.row().number(std::to_string(run.id)).text(run.strategy).number(std::to_string(run.seed));
    table.number(std::to_string(run.budget)).text(run.status).number(std::to_string(run.evaluated));
    table.number(std::to_string(run.failed)).text(run.started_at).text(or_dash(run.finished_at));
    table.text(or_dash(run.device_name))
        .number(run.driver_version ? std::to_string(run.driver_version) : "–");
    table.text(or_dash(run.nvrtc_version)).markup(gpu_states_cell(run));
    table.spanning("<div>timing: " + escape_xml(timing_text(run)) + "</div><div>command: <code>" +
                       escape_xml(run.command) + "</code></div>",
                   headers.size());
  }
  return table.finish();
}

}  // namespace evotune::report
