// Heatmap cells on two band axes, coloured by a value in [0, 1], shared by the pair and shape heatmaps.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/chart.hpp"

namespace evotune::report {

struct HeatCell {
  std::size_t column = 0, row = 0;
  std::optional<double> t;  // position on the colour ramp; none: no data (grey)
  std::string text;         // written in the cell when it is wide enough
  std::string tooltip;
};

void draw_heatmap(Chart& chart, const Band& columns, const Band& rows, const std::vector<HeatCell>& cells);

// Legend boxes for the ramp's positions 0, 1/(n-1), ..., 1, one per label.
std::vector<LegendEntry> ramp_legend(const std::vector<std::string>& labels);

}  // namespace evotune::report
