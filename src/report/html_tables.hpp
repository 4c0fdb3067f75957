// The tables beside the plots, as XHTML: the fastest configs, the failures by reason, the runs.
#pragma once

#include <string>

#include "report/report_data.hpp"

namespace evotune::report {

// Rank, config id, every parameter (file order), median, p20, p80, TFLOP/s, registers, run.
std::string top_configs_table(const ReportData& data, int top_k);
// One row per (status, reason): how many, and the first config ids; most frequent first.
std::string failures_table(const ReportData& data);
// Strategy, seed, budget, status, counts, start and finish, device, driver and NVRTC versions, command.
std::string runs_table(const ReportData& data);

}  // namespace evotune::report
