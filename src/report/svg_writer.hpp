// SvgWriter: SVG elements appended to a string, numbers in fixed formatting, text escaped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace evotune::report {

struct Point {
  double x = 0, y = 0;
};

enum class Anchor { start, middle, end };

class SvgWriter {
 public:
  // attributes: ready-made attribute text, e.g. class="axis x" (escape values with escape_xml).
  void open_group(std::string_view attributes);
  void close_group();
  void line(Point from, Point to, std::string_view stroke, double width = 1, bool dashed = false);
  // A tooltip becomes the element's <title>, which browsers show on hover.
  void rect(double x, double y, double width, double height, std::string_view fill,
            std::string_view tooltip = {}, std::string_view stroke = {});
  void circle(Point centre, double radius, std::string_view fill, double opacity = 1,
              std::string_view tooltip = {});
  // A circle that takes its fill from the enclosing group: many points in little text.
  void dot(Point centre, double radius);
  void polyline(const std::vector<Point>& points, std::string_view stroke, double width = 1.5,
                bool dashed = false);
  // rotate: degrees about the anchor point (-90 for a vertical axis title).
  void text(Point at, std::string_view content, Anchor anchor = Anchor::start, std::string_view fill = {},
            double rotate = 0, bool bold = false);
  void append(const SvgWriter& other) { out_ += other.out_; }
  const std::string& body() const { return out_; }

 private:
  std::string out_;
};

// A coordinate or length as written: one decimal.
std::string coordinate(double value);

// An <svg> element (namespace, size, viewBox, default font, white background, <title>) around a body: inline
// in XHTML as it is, and a standalone .svg file after an XML declaration.
std::string svg_element(double width, double height, std::string_view title, std::string_view body);

}  // namespace evotune::report
