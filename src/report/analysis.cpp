// Best-so-far, ranking and sensitivity: plain passes over the stored measurements, deterministic in order.
#include "report/analysis.hpp"

#include <algorithm>
#include <cmath>

namespace evotune::report {

std::vector<const StoredMeasurement*> ranked_ok(const ReportData& data) {
  std::vector<const StoredMeasurement*> ok;
  for (const auto& row : data.measurements)
    if (row.result.status == Status::ok && row.result.timing) ok.push_back(&row);
  std::sort(ok.begin(), ok.end(), [](const StoredMeasurement* a, const StoredMeasurement* b) {
    if (a->result.timing->median_us != b->result.timing->median_us)
      return a->result.timing->median_us < b->result.timing->median_us;
    return a->result.measurement_id < b->result.measurement_id;
  });
  return ok;
}

std::vector<RunCurve> best_so_far(const ReportData& data) {
  std::vector<RunCurve> curves;
  for (const auto& run : data.runs) {
    RunCurve curve{&run, {}};
    double evaluations = 0;
    std::optional<double> best;
    for (const auto& row : data.measurements) {
      if (row.run_id != run.id) continue;
      evaluations += 1;
      if (row.result.status == Status::ok && row.result.timing)
        best = std::min(best.value_or(row.result.timing->median_us), row.result.timing->median_us);
      if (best) curve.points.push_back({evaluations, row.seconds_into_run, *best});
    }
    if (!curve.points.empty()) curves.push_back(std::move(curve));
  }
  return curves;
}

std::string run_label(const RunSummary& run) {
  return "run " + std::to_string(run.id) + ": " + run.strategy + ", seed " + std::to_string(run.seed);
}

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

std::vector<ParameterTimes> parameter_times(const ReportData& data) {
  std::vector<ParameterTimes> parameters;
  for (const auto& parameter : data.parameters) {
    ParameterTimes times{parameter.name, {}, 1};
    for (const ParamValue value : parameter.values) times.values.push_back({value, {}, {}});
    for (const auto& row : data.measurements) {
      const auto found = row.result.params.find(parameter.name);
      if (found == row.result.params.end()) continue;
      for (auto& value : times.values) {
        if (value.value != found->second) continue;
        ++value.statuses[row.result.status];
        if (row.result.status == Status::ok && row.result.timing)
          value.ok_us.push_back(row.result.timing->median_us);
      }
    }
    double fastest = 0, slowest = 0;
    for (auto& value : times.values) {
      if (value.ok_us.empty()) continue;
      std::sort(value.ok_us.begin(), value.ok_us.end());
      const double median = quantile(value.ok_us, 0.5);
      fastest = fastest == 0 ? median : std::min(fastest, median);
      slowest = std::max(slowest, median);
    }
    if (fastest > 0) times.spread = slowest / fastest;
    parameters.push_back(std::move(times));
  }
  std::stable_sort(parameters.begin(), parameters.end(),
                   [](const ParameterTimes& a, const ParameterTimes& b) { return a.spread > b.spread; });
  return parameters;
}

}  // namespace evotune::report
