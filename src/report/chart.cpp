// Chart: axes, grid, legend and title around a plot's marks.
#include "report/chart.hpp"

#include <algorithm>

#include "report/text_format.hpp"

namespace evotune::report {
namespace {

constexpr const char* kAxisColour = "#444444";
constexpr const char* kGridColour = "#e8e8e8";
constexpr double kTick = 5;

std::size_t longest_label(const Band& band) {
  std::size_t longest = 0;
  for (const auto& category : band.categories()) longest = std::max(longest, category.label.size());
  return longest;
}

}  // namespace

double text_width(std::size_t characters) { return 6.2 * static_cast<double>(characters); }

Chart::Chart(std::string title, Frame frame) : title_(std::move(title)), frame_(frame) {}

void Chart::x_axis(const Scale& scale, std::string_view title, bool grid) {
  axes_.open_group("class=\"axis x\"");
  axes_.line({left(), bottom()}, {right(), bottom()}, kAxisColour);
  for (const Tick& tick : scale.ticks()) {
    const double x = scale(tick.value);
    if (grid) grid_.line({x, top()}, {x, bottom()}, kGridColour);
    axes_.line({x, bottom()}, {x, bottom() + kTick}, kAxisColour);
    axes_.text({x, bottom() + kTick + 11}, tick.label, Anchor::middle);
  }
  axes_.text({(left() + right()) / 2, frame_.height - 10}, title, Anchor::middle);
  axes_.close_group();
}

void Chart::y_axis(const Scale& scale, std::string_view title, bool grid) {
  axes_.open_group("class=\"axis y\"");
  axes_.line({left(), top()}, {left(), bottom()}, kAxisColour);
  for (const Tick& tick : scale.ticks()) {
    const double y = scale(tick.value);
    if (grid) grid_.line({left(), y}, {right(), y}, kGridColour);
    axes_.line({left() - kTick, y}, {left(), y}, kAxisColour);
    axes_.text({left() - kTick - 3, y + 4}, tick.label, Anchor::end);
  }
  axes_.text({16, (top() + bottom()) / 2}, title, Anchor::middle, {}, -90);
  axes_.close_group();
}

void Chart::x_bands(const Band& band, std::string_view title) {
  axes_.open_group("class=\"axis x\"");
  axes_.line({left(), bottom()}, {right(), bottom()}, kAxisColour);
  // Labels wider than their slot stand vertically.
  const bool vertical = text_width(longest_label(band)) > std::abs(band.step()) - 2;
  for (std::size_t i = 0; i < band.size(); ++i) {
    const double x = band.centre(i);
    axes_.line({x, bottom()}, {x, bottom() + kTick}, kAxisColour);
    if (vertical)
      axes_.text({x + 4, bottom() + kTick + 3}, band.categories()[i].label, Anchor::end, {}, -90);
    else
      axes_.text({x, bottom() + kTick + 11}, band.categories()[i].label, Anchor::middle);
  }
  const double group_y = bottom() + kTick + 11 + (vertical ? text_width(longest_label(band)) : 0) + 14;
  for (const auto& group : band.groups()) {
    const double from = band.centre(group.first) - band.width() / 2;
    const double to = band.centre(group.last) + band.width() / 2;
    axes_.line({from, group_y - 11}, {to, group_y - 11}, kAxisColour);
    const auto newline = group.name.find('\n');
    axes_.text({(from + to) / 2, group_y}, group.name.substr(0, newline), Anchor::middle, {}, 0, true);
    if (newline != std::string::npos)
      axes_.text({(from + to) / 2, group_y + 13}, group.name.substr(newline + 1), Anchor::middle);
  }
  axes_.text({(left() + right()) / 2, frame_.height - 10}, title, Anchor::middle);
  axes_.close_group();
}

void Chart::y_bands(const Band& band, std::string_view title) {
  axes_.open_group("class=\"axis y\"");
  axes_.line({left(), top()}, {left(), bottom()}, kAxisColour);
  for (std::size_t i = 0; i < band.size(); ++i) {
    const double y = band.centre(i);
    axes_.line({left() - kTick, y}, {left(), y}, kAxisColour);
    axes_.text({left() - kTick - 3, y + 4}, band.categories()[i].label, Anchor::end);
  }
  axes_.text({16, (top() + bottom()) / 2}, title, Anchor::middle, {}, -90);
  axes_.close_group();
}

void Chart::legend(const std::vector<LegendEntry>& entries) {
  axes_.open_group("class=\"legend\"");
  const double x = right() + 14;
  double y = top() + 6;
  for (const auto& entry : entries) {
    switch (entry.mark) {
      case LegendEntry::Mark::box:
        axes_.rect(x, y - 5, 10, 10, entry.colour);
        break;
      case LegendEntry::Mark::line:
        axes_.line({x, y}, {x + 14, y}, entry.colour, 2);
        break;
      case LegendEntry::Mark::dashed_line:
        axes_.line({x, y}, {x + 14, y}, entry.colour, 1.5, true);
        break;
      case LegendEntry::Mark::dot:
        axes_.circle({x + 5, y}, 3.5, entry.colour);
        break;
    }
    axes_.text({x + 20, y + 4}, entry.label);
    y += 17;
  }
  axes_.close_group();
}

void Chart::subtitle(std::string_view text) { axes_.text({frame_.left, 33}, text, Anchor::start, "#555555"); }

std::string Chart::svg() const {
  SvgWriter body;
  body.text({frame_.left, 18}, title_, Anchor::start, {}, 0, true);
  body.append(grid_);
  body.append(marks_);
  body.append(axes_);
  return svg_element(frame_.width, frame_.height, title_, body.body());
}

}  // namespace evotune::report
