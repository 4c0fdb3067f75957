// The numbers behind the plots: ranking, best-so-far curves, per-parameter time distributions, quantiles.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace evotune::report {

// The ok measurements fastest first, ties by measurement id: the order `evotune best` lists them in.
std::vector<const StoredMeasurement*> ranked_ok(const ReportData& data);

struct CurvePoint {
  double evaluations = 0;  // measurements the run had stored, this one included
  double seconds = 0;      // into the run when this one was stored
  double best_us = 0;      // fastest ok median of the run so far
};

struct RunCurve {
  const RunSummary* run = nullptr;
  std::vector<CurvePoint> points;  // one per measurement, from the run's first ok one on
};

// One curve per run with an ok measurement, in run order. Each run counts the measurements it stored itself.
std::vector<RunCurve> best_so_far(const ReportData& data);

// "run 2: evolve, seed 1"
std::string run_label(const RunSummary& run);

// Linear interpolation between order statistics; `sorted` ascending and not empty, q in [0, 1].
double quantile(const std::vector<double>& sorted, double q);

struct ValueTimes {
  ParamValue value = 0;
  std::vector<double> ok_us;       // ascending
  std::map<Status, int> statuses;  // measurements with this value, by status
};

struct ParameterTimes {
  std::string name;
  std::vector<ValueTimes> values;  // the space file's order
  double spread = 1;               // slowest value's median ok time over the fastest value's
};

// Every parameter's values with their measurements, most sensitive (largest spread) first, ties in file
// order.
std::vector<ParameterTimes> parameter_times(const ReportData& data);

}  // namespace evotune::report
