// An evaluation count as the bench tables print it: whole counts without a decimal, "never" for none.
#pragma once

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace evotune::cli {

inline std::string count_text(const std::optional<double>& evaluations) {
  if (!evaluations) return "never";
  char text[32];
  std::snprintf(text, sizeof text, *evaluations == std::floor(*evaluations) ? "%.0f" : "%.1f", *evaluations);
  return text;
}

}  // namespace evotune::cli
