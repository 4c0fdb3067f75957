// Chart: one plot's frame: title, plot area, the x and y axes (continuous or banded) with ticks, grid and
// titles, a legend in the right margin, and the marks the plot draws in between.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/scale.hpp"
#include "report/svg_writer.hpp"

namespace evotune::report {

struct Frame {
  double width = 760, height = 340;
  double left = 72, right = 24, top = 40, bottom = 52;  // margins around the plot area
};

struct LegendEntry {
  std::string label;
  std::string colour;
  enum class Mark { box, line, dashed_line, dot } mark = Mark::box;
};

class Chart {
 public:
  Chart(std::string title, Frame frame);

  // The plot area in pixels.
  double left() const { return frame_.left; }
  double right() const { return frame_.width - frame_.right; }
  double top() const { return frame_.top; }
  double bottom() const { return frame_.height - frame_.bottom; }

  // Each axis is one <g class="axis x"> or <g class="axis y"> holding its line, ticks, tick labels and title.
  void x_axis(const Scale& scale, std::string_view title, bool grid = true);
  void y_axis(const Scale& scale, std::string_view title, bool grid = true);
  // Group names go under the category labels, staggered over as many rows as they need not to overlap (the
  // frame grows below the plot area by the extra rows).
  void x_bands(const Band& band, std::string_view title);
  void y_bands(const Band& band, std::string_view title);
  // Stacked in the right margin (make frame.right wide enough, about 6 px a character).
  void legend(const std::vector<LegendEntry>& entries);
  // A line of small text under the title.
  void subtitle(std::string_view text);

  SvgWriter& marks() { return marks_; }  // drawn above the grid, below the axes
  std::string svg() const;

 private:
  std::string title_;
  Frame frame_;
  SvgWriter grid_, marks_, axes_;
};

// About how wide a text of n characters is at the default 11 px font.
double text_width(std::size_t characters);

}  // namespace evotune::report
