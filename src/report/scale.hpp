// Axes' arithmetic: a continuous scale (linear or log) from data to pixels with its ticks, and a band scale
// of categories (optionally in groups) for bars and heatmaps.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace evotune::report {

struct Tick {
  double value = 0;
  std::string label;
};

class Scale {
 public:
  // Domain [lo, hi] onto pixels [from, to] (to < from for a y axis). An empty domain is widened; a log
  // domain must be positive.
  static Scale linear(double lo, double hi, double from, double to);
  static Scale log(double lo, double hi, double from, double to);

  double operator()(double value) const;
  // Linear: multiples of 1, 2 or 5 times a power of ten. Log: powers of ten, or denser round values
  // (1-2-5, ...) where the domain spans less, or linear ticks where it spans too little for those.
  std::vector<Tick> ticks() const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool is_log() const { return log_; }

 private:
  Scale(double lo, double hi, double from, double to, bool log);
  double lo_, hi_, from_, to_;
  bool log_;
};

// [lo, hi] widened by `fraction` of its span on each side (for a log scale use lo / f, hi * f instead).
std::pair<double, double> padded(double lo, double hi, double fraction);

struct Category {
  std::string label;
  std::string group;  // consecutive categories of one group are drawn together, with the group's name (a '\n'
                      // in it starts a second line)
};

class Band {
 public:
  // Categories spread over pixels [from, to]; `padding` of each slot is left between bars; groups are set
  // apart by a gap of half a slot.
  Band(std::vector<Category> categories, double from, double to, double padding = 0.2);

  struct Group {
    std::string name;
    std::size_t first = 0, last = 0;
  };

  std::size_t size() const { return categories_.size(); }
  const std::vector<Category>& categories() const { return categories_; }
  double centre(std::size_t index) const;
  double step() const { return step_; }
  double width() const { return step_ * (1 - padding_); }  // a bar's width (signed like to - from)
  std::vector<Group> groups() const;                       // empty when no category has a group

 private:
  std::vector<Category> categories_;
  std::vector<double> slots_;
  double from_, step_, padding_;
};

}  // namespace evotune::report
