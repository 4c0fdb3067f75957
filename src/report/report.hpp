// render_report: a space version's results as one self-contained XHTML page with inline SVG plots (no script,
// no network, no external style), and each plot on its own. Same data, same bytes.
#pragma once

#include <string>
#include <vector>

#include "report/plots.hpp"
#include "report/report_data.hpp"

namespace evotune::report {

struct Report {
  std::string html;
  std::vector<Plot> plots;  // in page order, those with nothing to draw included (empty svg)
};

// Throws Error (one line) for a --pair that does not name two different parameters of the space.
Report render_report(const ReportData& data, const ReportOptions& options);

// A plot as a standalone .svg file: an XML declaration and its <svg> element.
std::string standalone_svg(const Plot& plot);

}  // namespace evotune::report
