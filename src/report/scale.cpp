// Scale and Band: the tick rules keep labels round (1, 2, 5 steps) and the positions exact.
#include "report/scale.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "report/text_format.hpp"

namespace evotune::report {
namespace {

double nice_step(double span, int target) {
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  const double factor = normalised < 1.5 ? 1 : normalised < 3 ? 2 : normalised < 7 ? 5 : 10;
  return factor * magnitude;
}

// Enough decimals to tell ticks `step` apart, no more.
int decimals_for(double step) { return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9))); }

std::vector<Tick> linear_ticks(double lo, double hi, int target) {
  const double step = nice_step(hi - lo, target);
  const int decimals = decimals_for(step);
  std::vector<Tick> ticks;
  const double first = std::ceil(lo / step - 1e-9);
  for (int i = 0;; ++i) {
    const double value = (first + i) * step;
    if (value > hi + step * 1e-9) break;
    ticks.push_back({value, fixed(value, decimals)});
  }
  return ticks;
}

// Round values (mantissa times a power of ten), from the sparsest set that gives at least four ticks; a
// domain too narrow for any falls back to linear ticks.
std::vector<Tick> log_ticks(double lo, double hi) {
  static const std::vector<std::vector<double>> kMantissas{
      {1}, {1, 2, 5}, {1, 2, 3, 5}, {1, 1.5, 2, 3, 4, 5, 6, 8}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}};
  for (const auto& mantissas : kMantissas) {
    std::vector<Tick> ticks;
    for (int exponent = static_cast<int>(std::floor(std::log10(lo)));
         exponent <= static_cast<int>(std::ceil(std::log10(hi))); ++exponent) {
      for (const double mantissa : mantissas) {
        const double value = mantissa * std::pow(10.0, exponent);
        if (value < lo * (1 - 1e-9) || value > hi * (1 + 1e-9)) continue;
        const int decimals = std::max(0, -exponent + (mantissa == std::floor(mantissa) ? 0 : 1));
        ticks.push_back({value, fixed(value, decimals)});
      }
    }
    if (ticks.size() >= 4) return ticks;
  }
  return linear_ticks(lo, hi, 5);
}

}  // namespace

Scale::Scale(double lo, double hi, double from, double to, bool log)
    : lo_(lo), hi_(hi), from_(from), to_(to), log_(log) {}

Scale Scale::linear(double lo, double hi, double from, double to) {
  if (!(hi > lo)) {
    const double half = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= half;
    hi += half;
  }
  return Scale(lo, hi, from, to, false);
}

Scale Scale::log(double lo, double hi, double from, double to) {
  if (!(lo > 0) || !(hi > 0)) throw Error("internal: a log scale of non-positive values");
  if (!(hi > lo)) {
    lo /= 1.1;
    hi *= 1.1;
  }
  return Scale(lo, hi, from, to, true);
}

double Scale::operator()(double value) const {
  const double t = log_ ? std::log(value / lo_) / std::log(hi_ / lo_) : (value - lo_) / (hi_ - lo_);
  return from_ + t * (to_ - from_);
}

std::vector<Tick> Scale::ticks() const { return log_ ? log_ticks(lo_, hi_) : linear_ticks(lo_, hi_, 6); }

std::pair<double, double> padded(double lo, double hi, double fraction) {
  const double margin = (hi - lo) * fraction;
  return {lo - margin, hi + margin};
}

Band::Band(std::vector<Category> categories, double from, double to, double padding)
    : categories_(std::move(categories)), from_(from), padding_(padding) {
  constexpr double kGroupGap = 0.5;
  double slot = 0;
  for (std::size_t i = 0; i < categories_.size(); ++i) {
    if (i > 0 && categories_[i].group != categories_[i - 1].group) slot += kGroupGap;
    slots_.push_back(slot);
    slot += 1;
  }
  step_ = (to - from) / std::max(1.0, slot);
}

double Band::centre(std::size_t index) const { return from_ + (slots_.at(index) + 0.5) * step_; }

std::vector<Band::Group> Band::groups() const {
  std::vector<Group> groups;
  for (std::size_t i = 0; i < categories_.size(); ++i) {
    if (!groups.empty() && groups.back().name == categories_[i].group)
      groups.back().last = i;
    else
      groups.push_back({categories_[i].group, i, i});
  }
  if (groups.size() == 1 && groups.front().name.empty()) groups.clear();
  return groups;
}

}  // namespace evotune::report
