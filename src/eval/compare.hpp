// Pure numerics of validation and timing: output comparison, the verdict, sample statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "core/outcome.hpp"
#include "core/status.hpp"

namespace evotune {

// Compares a variant's output with the reference's, element by element (both the same length; throws
// Error otherwise). A non-finite output element counts in non_finite unless the reference holds the same
// non-finite value there (NaN/NaN, +Inf/+Inf); max_abs and rel_l2 are taken over the elements finite in
// both; a finite output where the reference is non-finite makes max_abs infinite. rel_l2 is
// ||out - ref||_2 / ||ref||_2, or the absolute ||out - ref||_2 when the reference is all zeros.
// The evaluator compares on the device (BuiltinKernels::compare) with the same rules; this is their
// host-side statement, and the device comparison's oracle in tests.
ErrorStats compare_outputs(const std::vector<double>& reference, const std::vector<double>& output);

// ErrorStats from the sums a comparison gathers: rel_l2 as compare_outputs() defines it.
ErrorStats error_stats(double max_abs, double diff_squares, double reference_squares, std::int64_t non_finite,
                       std::int64_t elements);

// The combined statistics of several output buffers: the worst of each measure, counts added.
ErrorStats merge(const ErrorStats& a, const ErrorStats& b);
// The worse of two rounds' errors over the same outputs: each figure's maximum, the element count kept.
ErrorStats worst_round(const ErrorStats& a, const ErrorStats& b);

// Where two outputs of the same kernel on the same inputs differ bit for bit (a race, or reading memory
// nothing wrote): how many elements, and the first.
struct BitwiseDifference {
  std::int64_t differing = 0;
  std::int64_t first = 0;
  double first_a = 0, first_b = 0;
};

// "%.3g": numbers in verdicts and limits.
std::string short_number(double value);

// The reason text of a failed verdict: "3 of 4096 output elements are NaN/Inf (unwritten or non-finite)", or
// "max_abs 0.5 (tolerance 0.02), rel_l2 0.3 (tolerance 0.01)".
std::string describe_verdict(Status status, const ErrorStats& error, const Tolerances& tolerances);

// nan when any element is non-finite, wrong_result when max_abs or rel_l2 is over its tolerance, else ok.
Status judge(const ErrorStats& error, const Tolerances& tolerances);

// Median, min, mean, sample standard deviation and the 20th/80th percentiles (linear interpolation) of
// per-launch times in microseconds. No samples: all zero.
TimingStats summarize(std::vector<double> samples_us);

}  // namespace evotune
