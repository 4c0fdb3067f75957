// Ranked results as an aligned table or as JSON.
#include "cli/result_table.hpp"

#include <string>

namespace evotune::cli {
void print_result_table(const std::vector<RankedResult>& results, std::FILE* out) {
  if (results.empty()) {
    std::fprintf(out, "no results\n");
    return;
  }
  std::fprintf(out, "%4s %8s %11s %21s %8s %5s  %-14s %s\n", "rank", "config", "median_us", "p20..p80_us",
               "TFLOP/s", "regs", "status", "params");
  int rank = 0;
  for (const auto& r : results) {
    ++rank;
    if (r.timing) {
      char spread[48];
      std::snprintf(spread, sizeof spread, "%.2f..%.2f", r.timing->p20_us, r.timing->p80_us);
      std::fprintf(out, "%4d %8lld %11.2f %21s %8.1f %5d  %-14s %s\n", rank,
                   static_cast<long long>(r.config_id), r.timing->median_us, spread, r.tflops, r.registers,
                   std::string(to_string(r.status)).c_str(), key_value_text(r.params, ' ').c_str());
    } else {
      std::fprintf(out, "%4d %8lld %11s %21s %8s %5d  %-14s %s  (%s)\n", rank,
                   static_cast<long long>(r.config_id), "-", "-", "-", r.registers,
                   std::string(to_string(r.status)).c_str(), key_value_text(r.params, ' ').c_str(),
                   r.message.c_str());
    }
  }
}

nlohmann::json results_json(const std::vector<RankedResult>& results) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json item;
    item["config_id"] = r.config_id;
    item["params"] = r.params;
    item["status"] = std::string(to_string(r.status));
    item["message"] = r.message;
    item["device"] = r.device_name;
    item["registers"] = r.registers;
    item["tflops"] = r.tflops;
    item["gbps"] = r.gbps;
    if (r.timing) {
      item["time_us"] = r.timing->median_us;
      item["time_min_us"] = r.timing->min_us;
      item["time_p20_us"] = r.timing->p20_us;
      item["time_p80_us"] = r.timing->p80_us;
      item["time_stddev_us"] = r.timing->stddev_us;
      item["samples"] = r.timing->samples;
    } else {
      item["time_us"] = nullptr;
    }
    array.push_back(std::move(item));
  }
  return array;
}

}  // namespace evotune::cli
