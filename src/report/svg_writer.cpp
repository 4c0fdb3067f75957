// SvgWriter: every element is one line, so a changed plot diffs line by line against its golden file.
#include "report/svg_writer.hpp"

#include "report/text_format.hpp"

namespace evotune::report {
namespace {

std::string tooltip_element(std::string_view tooltip) {
  return tooltip.empty() ? "" : "<title>" + escape_xml(tooltip) + "</title>";
}

// A shape with an optional tooltip: self-closing without one.
std::string finish_shape(std::string_view tag, std::string_view tooltip) {
  if (tooltip.empty()) return "/>\n";
  return ">" + tooltip_element(tooltip) + "</" + std::string(tag) + ">\n";
}

}  // namespace

std::string coordinate(double value) { return fixed(value, 1); }

void SvgWriter::open_group(std::string_view attributes) {
  out_ += "<g";
  if (!attributes.empty()) out_ += " " + std::string(attributes);
  out_ += ">\n";
}

void SvgWriter::close_group() { out_ += "</g>\n"; }

void SvgWriter::line(Point from, Point to, std::string_view stroke, double width, bool dashed) {
  out_ += "<line x1=\"" + coordinate(from.x) + "\" y1=\"" + coordinate(from.y) + "\" x2=\"" +
          coordinate(to.x) + "\" y2=\"" + coordinate(to.y) + "\" stroke=\"" + std::string(stroke) +
          "\" stroke-width=\"" + fixed(width, 1) + "\"" + (dashed ? " stroke-dasharray=\"4 3\"" : "") +
          "/>\n";
}

void SvgWriter::rect(double x, double y, double width, double height, std::string_view fill,
                     std::string_view tooltip, std::string_view stroke) {
  out_ += "<rect x=\"" + coordinate(x) + "\" y=\"" + coordinate(y) + "\" width=\"" + coordinate(width) +
          "\" height=\"" + coordinate(height) + "\" fill=\"" + std::string(fill) + "\"";
  if (!stroke.empty()) out_ += " stroke=\"" + std::string(stroke) + "\"";
  out_ += finish_shape("rect", tooltip);
}

void SvgWriter::circle(Point centre, double radius, std::string_view fill, double opacity,
                       std::string_view tooltip) {
  out_ += "<circle cx=\"" + coordinate(centre.x) + "\" cy=\"" + coordinate(centre.y) + "\" r=\"" +
          coordinate(radius) + "\" fill=\"" + std::string(fill) + "\"";
  if (opacity < 1) out_ += " fill-opacity=\"" + fixed(opacity, 2) + "\"";
  out_ += finish_shape("circle", tooltip);
}

void SvgWriter::dot(Point centre, double radius) {
  out_ += "<circle cx=\"" + coordinate(centre.x) + "\" cy=\"" + coordinate(centre.y) + "\" r=\"" +
          coordinate(radius) + "\"/>\n";
}

void SvgWriter::polyline(const std::vector<Point>& points, std::string_view stroke, double width,
                         bool dashed) {
  if (points.empty()) return;
  out_ += "<polyline fill=\"none\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + fixed(width, 1) +
          "\"" + (dashed ? " stroke-dasharray=\"4 3\"" : "") + " points=\"";
  for (std::size_t i = 0; i < points.size(); ++i)
    out_ += (i ? " " : "") + coordinate(points[i].x) + "," + coordinate(points[i].y);
  out_ += "\"/>\n";
}

void SvgWriter::text(Point at, std::string_view content, Anchor anchor, std::string_view fill, double rotate,
                     bool bold) {
  out_ += "<text x=\"" + coordinate(at.x) + "\" y=\"" + coordinate(at.y) + "\"";
  if (anchor == Anchor::middle) out_ += " text-anchor=\"middle\"";
  if (anchor == Anchor::end) out_ += " text-anchor=\"end\"";
  if (!fill.empty()) out_ += " fill=\"" + std::string(fill) + "\"";
  if (bold) out_ += " font-weight=\"bold\"";
  if (rotate != 0)
    out_ +=
        " transform=\"rotate(" + fixed(rotate, 0) + " " + coordinate(at.x) + " " + coordinate(at.y) + ")\"";
  out_ += ">" + escape_xml(content) + "</text>\n";
}

std::string svg_element(double width, double height, std::string_view title, std::string_view body) {
  const std::string w = coordinate(width), h = coordinate(height);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " +
         w + " " + h + "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n" +
         tooltip_element(title) + "\n<rect width=\"" + w + "\" height=\"" + h + "\" fill=\"white\"/>\n" +
         std::string(body) + "</svg>\n";
}

}  // namespace evotune::report
