// Colours chosen to stay apart for common colour-vision deficiencies (Okabe-Ito for series, viridis ramp).
#include "report/palette.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace evotune::report {

std::string status_colour(Status status) {
  switch (status) {
    case Status::ok:
      return "#4daf4a";
    case Status::compile_error:
      return "#999999";
    case Status::resource_error:
      return "#ff7f00";
    case Status::launch_error:
      return "#e41a1c";
    case Status::timeout:
      return "#984ea3";
    case Status::wrong_result:
      return "#377eb8";
    case Status::nan:
      return "#a65628";
    case Status::out_of_bounds:
      return "#f781bf";
    case Status::nondeterministic:
      return "#e6ab02";
  }
  return "#000000";
}

std::string series_colour(std::size_t index) {
  static constexpr std::array<const char*, 10> kColours{"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                                        "#e69f00", "#56b4e9", "#f0e442", "#000000",
                                                        "#8c564b", "#7f7f7f"};
  return kColours[index % kColours.size()];
}

std::string sequential_colour(double t) {
  // Viridis at nine evenly spaced points, reversed in meaning: 0 (fast) is the dark end.
  static constexpr std::array<std::array<int, 3>, 9> kStops{{{68, 1, 84},
                                                             {71, 44, 122},
                                                             {59, 81, 139},
                                                             {44, 113, 142},
                                                             {33, 144, 141},
                                                             {39, 173, 129},
                                                             {92, 200, 99},
                                                             {170, 220, 50},
                                                             {253, 231, 37}}};
  const double position = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * (kStops.size() - 1);
  const std::size_t below = std::min(static_cast<std::size_t>(position), kStops.size() - 2);
  const double f = position - static_cast<double>(below);
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(std::lround(kStops[below][c] + f * (kStops[below + 1][c] - kStops[below][c])));
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

std::string text_colour_on(double t) { return t < 0.55 ? "white" : "black"; }

}  // namespace evotune::report
