// Registers and spills against time: a scatter of the ok configs with a compile record.
#include <algorithm>
#include <limits>

#include "report/chart.hpp"
#include "report/plots.hpp"
#include "report/text_format.hpp"

namespace evotune::report {

Plot registers_and_spills(const ReportData& data) {
  Plot plot{"registers-spills",
            "Registers and spills against time",
            "Each ok config's median time against its registers per thread (from ptxas); orange points spill "
            "to local memory (hover for the bytes).",
            {},
            {}};
  std::vector<const StoredMeasurement*> rows;
  double lo = std::numeric_limits<double>::max(), hi = 0, registers = 0;
  for (const auto& row : data.measurements) {
    if (!row.compiled || row.result.status != Status::ok || !row.result.timing) continue;
    rows.push_back(&row);
    lo = std::min(lo, row.result.timing->median_us);
    hi = std::max(hi, row.result.timing->median_us);
    registers = std::max(registers, static_cast<double>(row.result.registers));
  }
  if (rows.empty()) {
    plot.note = "No ok measurement has a compile record (replayed runs store none).";
    return plot;
  }
  Frame frame;
  frame.right = 160;
  Chart chart(plot.title, frame);
  const Scale x = Scale::linear(0, std::max(1.0, registers * 1.08), chart.left(), chart.right());
  const Scale y = Scale::log(lo / 1.05, hi * 1.05, chart.bottom(), chart.top());
  chart.x_axis(x, "registers per thread");
  chart.y_axis(y, "median time (µs, log scale)");
  constexpr const char* kClean = "#0072b2";
  constexpr const char* kSpills = "#d55e00";
  int spilling = 0;
  for (const auto* row : rows) {
    const bool spills = row->spill_bytes > 0;
    spilling += spills ? 1 : 0;
    chart.marks().circle(
        {x(row->result.registers), y(row->result.timing->median_us)}, 2.6, spills ? kSpills : kClean, 0.6,
        "config " + std::to_string(row->result.config_id) + ": " + std::to_string(row->result.registers) +
            " registers, " + std::to_string(row->spill_bytes) + " bytes spilled, " +
            time_text(row->result.timing->median_us) + " µs");
  }
  chart.legend(
      {{"no spills (" + std::to_string(rows.size() - spilling) + ")", kClean, LegendEntry::Mark::dot},
       {"spills (" + std::to_string(spilling) + ")", kSpills, LegendEntry::Mark::dot}});
  plot.svg = chart.svg();
  return plot;
}

}  // namespace evotune::report
