// The report's plots, one function per kind (one file each). A plot with nothing to draw says why instead.
#pragma once

#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "report/report_data.hpp"

namespace evotune::report {

struct Plot {
  std::string id;  // the section's anchor and the --svg file's name
  std::string title;
  std::string caption;  // what it shows, under the plot
  std::string svg;      // an <svg> element; empty when there is nothing to draw
  std::string note;     // why there is nothing to draw
};

// Best ok time so far of each run against its evaluations, and against seconds into the run.
Plot convergence_by_evaluations(const ReportData& data);
Plot convergence_by_time(const ReportData& data);
// Stacked bars of statuses: per run, and per parameter value (share of the measurements with that value).
Plot statuses_by_run(const ReportData& data);
Plot statuses_by_value(const std::vector<ParameterTimes>& parameters);
// Ok times per parameter value on a log scale (points, box, whiskers), most sensitive parameter first.
Plot sensitivity(const std::vector<ParameterTimes>& parameters);
// Best ok time of each combination of two parameters' values.
Plot pair_heatmap(const ReportData& data, const std::string& x_parameter, const std::string& y_parameter);
// Empirical distribution of the ok times, with the share within 5% and 10% of the best.
Plot ok_time_ecdf(const ReportData& data);
// Registers per thread against time, spilling configs marked.
Plot registers_and_spills(const ReportData& data);
// The fastest top_k configs with their p20..p80 spread.
Plot top_configs(const ReportData& data, int top_k);
// Slowdown of configs on every problem of the space version against that problem's best.
Plot shape_slowdown(const ReportData& data);

}  // namespace evotune::report
