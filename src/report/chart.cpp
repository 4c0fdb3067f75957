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

// The widest line of a group name in bold capitals (parameter names): about 8 px a character at 11 px in
// DejaVu Sans Bold or Liberation Sans Bold, wider than text_width's mixed-case regular text.
double group_name_width(const std::string& name) {
  std::size_t widest = 0;
  for (std::size_t start = 0; start <= name.size();) {
    const std::size_t end = std::min(name.find('\n', start), name.size());
    widest = std::max(widest, end - start);
    start = end + 1;
  }
  return 8.0 * static_cast<double>(widest);
}

// The row of each group name under a banded axis: the first row in which it clears the name before it there.
// Names wider than their groups (a space of a dozen parameters, several of two values) then stagger instead
// of overlapping.
std::vector<int> group_rows(const Band& band, const std::vector<Band::Group>& groups) {
  constexpr double kGap = 8;
  std::vector<int> rows;
  std::vector<double> ends;  // the right end of each row's last name
  for (const auto& group : groups) {
    const double centre = (band.centre(group.first) + band.centre(group.last)) / 2;
    const double half = group_name_width(group.name) / 2;
    std::size_t row = 0;
    while (row < ends.size() && centre - half < ends[row] + kGap) ++row;
    if (row == ends.size()) ends.push_back(0);
    ends[row] = centre + half;
    rows.push_back(static_cast<int>(row));
  }
  return rows;
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
  const auto groups = band.groups();
  const auto rows = group_rows(band, groups);
  const bool two_lines = std::any_of(groups.begin(), groups.end(), [](const Band::Group& g) {
    return g.name.find('\n') != std::string::npos;
  });
  const double row_height = two_lines ? 30 : 16;
  const int row_count = rows.empty() ? 1 : 1 + *std::max_element(rows.begin(), rows.end());
  // Staggered rows take room below the plot area, which keeps its place.
  frame_.height += (row_count - 1) * row_height;
  frame_.bottom += (row_count - 1) * row_height;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    const double from = band.centre(group.first) - band.width() / 2;
    const double to = band.centre(group.last) + band.width() / 2;
    const double y = group_y + rows[g] * row_height;
    axes_.line({from, group_y - 11}, {to, group_y - 11}, kAxisColour);
    const auto newline = group.name.find('\n');
    axes_.text({(from + to) / 2, y}, group.name.substr(0, newline), Anchor::middle, {}, 0, true);
    if (newline != std::string::npos)
      axes_.text({(from + to) / 2, y + 13}, group.name.substr(newline + 1), Anchor::middle);
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
