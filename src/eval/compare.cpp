// Output comparison and sample statistics.
#include "eval/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/error.hpp"

namespace evotune {
namespace {

bool same_non_finite(double reference, double output) {
  if (std::isnan(reference)) return std::isnan(output);
  return std::isinf(reference) && reference == output;
}

double percentile(const std::vector<double>& sorted, double fraction) {
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

ErrorStats compare_outputs(const std::vector<double>& reference, const std::vector<double>& output) {
  if (reference.size() != output.size())
    throw Error("compare_outputs: reference has " + std::to_string(reference.size()) + " elements, output " +
                std::to_string(output.size()));
  double max_abs = 0;
  std::int64_t non_finite = 0;
  double diff_squares = 0;
  double reference_squares = 0;
  for (std::size_t i = 0; i < output.size(); ++i) {
    const double ref = reference[i];
    const double out = output[i];
    if (!std::isfinite(out)) {
      if (!same_non_finite(ref, out)) ++non_finite;
      continue;
    }
    if (!std::isfinite(ref)) {
      max_abs = INFINITY;
      continue;
    }
    const double diff = out - ref;
    max_abs = std::max(max_abs, std::fabs(diff));
    diff_squares += diff * diff;
    reference_squares += ref * ref;
  }
  return error_stats(max_abs, diff_squares, reference_squares, non_finite,
                     static_cast<std::int64_t>(output.size()));
}

ErrorStats error_stats(double max_abs, double diff_squares, double reference_squares, std::int64_t non_finite,
                       std::int64_t elements) {
  ErrorStats stats;
  stats.max_abs = max_abs;
  stats.non_finite = non_finite;
  stats.elements = elements;
  const double diff_norm = std::sqrt(diff_squares);
  stats.rel_l2 = reference_squares > 0 ? diff_norm / std::sqrt(reference_squares) : diff_norm;
  return stats;
}

ErrorStats merge(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats merged;
  merged.max_abs = std::max(a.max_abs, b.max_abs);
  merged.rel_l2 = std::max(a.rel_l2, b.rel_l2);
  merged.non_finite = a.non_finite + b.non_finite;
  merged.elements = a.elements + b.elements;
  return merged;
}

ErrorStats worst_round(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats worst;
  worst.max_abs = std::max(a.max_abs, b.max_abs);
  worst.rel_l2 = std::max(a.rel_l2, b.rel_l2);
  worst.non_finite = std::max(a.non_finite, b.non_finite);
  worst.elements = std::max(a.elements, b.elements);
  return worst;
}

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string describe_verdict(Status status, const ErrorStats& error, const Tolerances& tolerances) {
  if (status == Status::nan)
    return std::to_string(error.non_finite) + " of " + std::to_string(error.elements) +
           " output elements are NaN/Inf (unwritten or non-finite)";
  return "max_abs " + short_number(error.max_abs) + " (tolerance " + short_number(tolerances.max_abs) +
         "), rel_l2 " + short_number(error.rel_l2) + " (tolerance " + short_number(tolerances.rel_l2) + ")";
}

Status judge(const ErrorStats& error, const Tolerances& tolerances) {
  if (error.non_finite > 0) return Status::nan;
  // Written so that a NaN statistic fails too.
  if (!(error.max_abs <= tolerances.max_abs) || !(error.rel_l2 <= tolerances.rel_l2))
    return Status::wrong_result;
  return Status::ok;
}

TimingStats summarize(std::vector<double> samples_us) {
  TimingStats stats;
  stats.samples = static_cast<int>(samples_us.size());
  if (samples_us.empty()) return stats;
  std::sort(samples_us.begin(), samples_us.end());
  const double n = static_cast<double>(samples_us.size());
  stats.min_us = samples_us.front();
  stats.median_us = percentile(samples_us, 0.5);
  stats.p20_us = percentile(samples_us, 0.2);
  stats.p80_us = percentile(samples_us, 0.8);
  stats.mean_us = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) / n;
  if (samples_us.size() > 1) {
    double squares = 0;
    for (const double sample : samples_us) squares += (sample - stats.mean_us) * (sample - stats.mean_us);
    stats.stddev_us = std::sqrt(squares / (n - 1));
  }
  return stats;
}

}  // namespace evotune
