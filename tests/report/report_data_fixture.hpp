// A hand-made ReportData for the report's tests: two runs, failures with reasons, compile records (spills
// among them), a second problem and a reference time, so every plot has something to draw.
#pragma once

#include "core/outcome.hpp"
#include "report/report_data.hpp"

namespace evotune::report_test {

inline StoredMeasurement measurement(std::int64_t id, std::int64_t run_id, Config params, Status status,
                                     double median_us, double seconds) {
  StoredMeasurement row;
  row.result.measurement_id = id;
  row.result.config_id = id;
  row.result.params = std::move(params);
  row.result.status = status;
  row.result.device_name = "NVIDIA H100 80GB HBM3";
  if (status == Status::ok) {
    row.result.timing =
        TimingStats{median_us, median_us * 0.9, median_us, 0.1, median_us * 0.95, median_us * 1.1, 30};
    row.result.tflops = 100 / median_us;
    row.compiled = true;
    row.result.registers = static_cast<int>(32 + id * 8);
    row.spill_bytes = id % 3 == 0 ? 16 : 0;
  } else {
    row.result.message = status == Status::launch_error ? "illegal address" : "shared memory <too> \"large\"";
  }
  row.run_id = run_id;
  row.seconds_into_run = seconds;
  return row;
}

inline report::ReportData report_data() {
  report::ReportData data;
  data.space_name = "tiny";
  data.space_hash = "0123456789abcdef";
  data.problem = {{"N", 4096}};
  data.parameters = {{"BLOCK", {64, 128, 256}}, {"ITEMS", {1, 2, 4}}};
  RunSummary first;
  first.id = 1;
  first.strategy = "evolve";
  first.seed = 7;
  first.command = "evotune tune tiny.json --strategy evolve";
  first.started_at = "2026-01-02T03:04:05.678Z";
  first.finished_at = "2026-01-02T03:05:00.000Z";
  first.status = "finished";
  first.device_name = "NVIDIA H100 80GB HBM3";
  first.driver_version = 13000;
  first.nvrtc_version = "13.0";
  first.gpu_state_start = R"([{"uuid":"GPU-1","pci_bus_id":"0","sm_clock_mhz":1980,"clock_reasons":1}])";
  first.gpu_state_end = R"([{"uuid":"GPU-1","pci_bus_id":"0","sm_clock_mhz":1755,"clock_reasons":32}])";
  first.timing = R"({"warmup":3,"repetitions":30,"flush_l2":false,"validation_rounds":2})";
  RunSummary second = first;
  second.gpu_state_start = second.gpu_state_end = "";
  second.id = 2;
  second.strategy = "random";
  second.finished_at = "";
  second.status = "running";
  data.runs = {first, second};
  data.measurements = {
      measurement(1, 1, {{"BLOCK", 64}, {"ITEMS", 1}}, Status::ok, 20, 0.5),
      measurement(2, 1, {{"BLOCK", 128}, {"ITEMS", 1}}, Status::ok, 12, 1.0),
      measurement(3, 1, {{"BLOCK", 256}, {"ITEMS", 4}}, Status::launch_error, 0, 1.5),
      measurement(4, 1, {{"BLOCK", 128}, {"ITEMS", 2}}, Status::ok, 9, 2.0),
      measurement(5, 2, {{"BLOCK", 256}, {"ITEMS", 2}}, Status::resource_error, 0, 0.2),
      measurement(6, 2, {{"BLOCK", 64}, {"ITEMS", 4}}, Status::ok, 15, 0.4),
      measurement(7, 2, {{"BLOCK", 256}, {"ITEMS", 1}}, Status::launch_error, 0, 0.6),
      measurement(8, 2, {{"BLOCK", 64}, {"ITEMS", 2}}, Status::ok, 9, 0.8),
  };
  for (const auto& row : data.measurements)
    if (row.result.timing)
      data.problem_times.push_back(
          {data.problem, row.result.config_id, row.result.params, row.result.timing->median_us});
  data.problem_times.push_back({{{"N", 65536}}, 2, {{"BLOCK", 128}, {"ITEMS", 1}}, 40});
  data.problem_times.push_back({{{"N", 65536}}, 4, {{"BLOCK", 128}, {"ITEMS", 2}}, 55});
  data.reference_us = 30;
  return data;
}

}  // namespace evotune::report_test
