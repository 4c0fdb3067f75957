// A heatmap plot: labelled columns and rows, cells coloured by a value in [0, 1] (grey where there is none),
// and a legend of the colour ramp. Shared by the pair and shape heatmaps.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace evotune::report {

struct HeatCell {
  std::size_t column = 0, row = 0;
  std::optional<double> t;  // position on the colour ramp; none: no data (grey)
  std::string text;         // written in the cell when it is wide enough
  std::string tooltip;
};

struct Heatmap {
  std::string title, x_title, y_title;
  std::vector<std::string> columns, rows;  // labels, left to right and top to bottom
  std::vector<HeatCell> cells;
  std::vector<std::string> legend;  // labels of evenly spaced positions on the ramp, 0 (dark) to 1
  double column_width = 64;
};

// The heatmap's <svg> element, sized to its columns and rows.
std::string heatmap_svg(const Heatmap& heatmap);

}  // namespace evotune::report
