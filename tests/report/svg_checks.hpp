// Checks on rendered plots: each <svg> has exactly one x and one y axis group, each with tick labels.
#pragma once

#include <string>
#include <vector>

namespace evotune::report_test {

// The <g class="axis ..."> group's text up to its </g> (axis groups hold no nested groups), or "".
inline std::string axis_group(const std::string& svg, const std::string& axis, std::size_t* count) {
  const std::string open = "<g class=\"axis " + axis + "\">";
  *count = 0;
  std::string first;
  for (auto at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    if ((*count)++ == 0) first = svg.substr(at, svg.find("</g>", at) - at);
  }
  return first;
}

// What is wrong with a plot's axes, one line each; empty when both are there with tick labels.
inline std::vector<std::string> axis_problems(const std::string& svg) {
  std::vector<std::string> problems;
  for (const std::string axis : {"x", "y"}) {
    std::size_t count = 0;
    const std::string group = axis_group(svg, axis, &count);
    if (count != 1) problems.push_back(std::to_string(count) + " " + axis + " axis groups");
    std::size_t labels = 0;
    for (auto at = group.find("<text"); at != std::string::npos; at = group.find("<text", at + 1)) ++labels;
    // Tick labels and the axis title: at least two tick labels besides the title.
    if (labels < 3) problems.push_back(axis + " axis has " + std::to_string(labels) + " texts");
  }
  return problems;
}

}  // namespace evotune::report_test
