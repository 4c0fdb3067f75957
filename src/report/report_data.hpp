// What a report shows: one space version and problem, read from the store by the caller. Plots and tables
// take only this, so they are tested without a database.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "store/store.hpp"

namespace evotune::report {

struct ReportParameter {
  std::string name;
  std::vector<ParamValue> values;  // in the space file's order
};

struct ReportData {
  std::string space_name, space_hash;
  Sizes problem;
  std::vector<ReportParameter> parameters;      // in the space file's order
  std::vector<RunSummary> runs;                 // of this space version and problem, oldest first
  std::vector<StoredMeasurement> measurements;  // of this problem, every device, in storing order
  std::vector<ProblemTime> problem_times;       // ok times of every problem of the space version
  std::optional<double> reference_us;           // the reference kernel's time, where the database holds one
  // The space's library baseline (cuBLASLt for a GEMM space) as the newest run that timed one stored it.
  std::optional<BaselineTiming> baseline;
};

struct ReportOptions {
  // The heatmap's two parameters (x, y); none: the two most sensitive.
  std::optional<std::pair<std::string, std::string>> pair;
  int top_k = 10;
};

}  // namespace evotune::report
