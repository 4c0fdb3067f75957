// Heatmaps: a rect per cell, its value in text when there is room, grey where nothing was measured.
#include "report/heatmap.hpp"

#include <algorithm>
#include <cmath>

#include "report/chart.hpp"
#include "report/palette.hpp"

namespace evotune::report {
namespace {

std::size_t longest(const std::vector<std::string>& labels) {
  std::size_t most = 0;
  for (const auto& label : labels) most = std::max(most, label.size());
  return most;
}

std::vector<Category> categories(const std::vector<std::string>& labels) {
  std::vector<Category> result;
  for (const auto& label : labels) result.push_back({label, ""});
  return result;
}

}  // namespace

std::string heatmap_svg(const Heatmap& heatmap) {
  Frame frame;
  frame.left = std::max(72.0, text_width(longest(heatmap.rows)) + 48);
  frame.right = text_width(longest(heatmap.legend)) + 48;
  frame.width = std::max(
      520.0, frame.left + frame.right + heatmap.column_width * static_cast<double>(heatmap.columns.size()));
  frame.height = std::max(200.0, frame.top + frame.bottom + 30.0 * static_cast<double>(heatmap.rows.size()));
  Chart chart(heatmap.title, frame);
  const Band columns(categories(heatmap.columns), chart.left(), chart.right(), 0);
  const Band rows(categories(heatmap.rows), chart.top(), chart.bottom(), 0);
  chart.x_bands(columns, heatmap.x_title);
  chart.y_bands(rows, heatmap.y_title);
  const double width = std::abs(columns.step()) - 2, height = std::abs(rows.step()) - 2;
  for (const auto& cell : heatmap.cells) {
    const double x = columns.centre(cell.column), y = rows.centre(cell.row);
    chart.marks().rect(x - width / 2, y - height / 2, width, height,
                       cell.t ? sequential_colour(*cell.t) : "#eeeeee", cell.tooltip);
    if (cell.t && !cell.text.empty() && text_width(cell.text.size()) + 4 <= width)
      chart.marks().text({x, y + 4}, cell.text, Anchor::middle, text_colour_on(*cell.t));
  }
  std::vector<LegendEntry> legend;
  const auto n = heatmap.legend.size();
  for (std::size_t i = 0; i < n; ++i)
    legend.push_back({heatmap.legend[i], sequential_colour(n > 1 ? static_cast<double>(i) / (n - 1.0) : 0)});
  chart.legend(legend);
  return chart.svg();
}

}  // namespace evotune::report
