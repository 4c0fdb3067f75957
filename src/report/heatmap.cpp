// Heatmap cells: a rect per cell, its value in text when there is room, grey where nothing was measured.
#include "report/heatmap.hpp"

#include <cmath>

#include "report/palette.hpp"

namespace evotune::report {

void draw_heatmap(Chart& chart, const Band& columns, const Band& rows, const std::vector<HeatCell>& cells) {
  const double width = std::abs(columns.step()) - 2, height = std::abs(rows.step()) - 2;
  for (const auto& cell : cells) {
    const double x = columns.centre(cell.column), y = rows.centre(cell.row);
    chart.marks().rect(x - width / 2, y - height / 2, width, height,
                       cell.t ? sequential_colour(*cell.t) : "#eeeeee", cell.tooltip);
    if (cell.t && !cell.text.empty() && text_width(cell.text.size()) + 4 <= width)
      chart.marks().text({x, y + 4}, cell.text, Anchor::middle, text_colour_on(*cell.t));
  }
}

std::vector<LegendEntry> ramp_legend(const std::vector<std::string>& labels) {
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < labels.size(); ++i)
    entries.push_back({labels[i], sequential_colour(labels.size() > 1 ? i / (labels.size() - 1.0) : 0)});
  return entries;
}

}  // namespace evotune::report
