// The report's colours: one per status, one per series (run), and a sequential map for heatmaps.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.hpp"

namespace evotune::report {

std::string status_colour(Status status);
// Ten distinguishable colours, repeating after ten.
std::string series_colour(std::size_t index);
// t in [0, 1] (clamped): dark blue (fast, 0) through green to yellow (slow, 1), as "#rrggbb".
std::string sequential_colour(double t);
// Black or white, whichever reads better on sequential_colour(t).
std::string text_colour_on(double t);

}  // namespace evotune::report
