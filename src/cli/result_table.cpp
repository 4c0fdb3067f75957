// Ranked results as an aligned table or as JSON.
#include "cli/result_table.hpp"

#include <string>

namespace evotune::cli {
namespace {

// "graph x12 flush", "single no-flush"; "-" for a result timed before the method was stored.
std::string method_text(const RankedResult& r) {
  return r.timing && r.timing->method ? short_text(*r.timing->method) : "-";
}

}  // namespace

void print_result_table(const std::vector<RankedResult>& results, std::FILE* out) {
  if (results.empty()) {
    std::fprintf(out, "no results\n");
    return;
  }
  std::fprintf(out, "%4s %8s %11s %21s %8s %5s  %-16s %-14s %s\n", "rank", "config", "median_us",
               "p20..p80_us", "TFLOP/s", "regs", "timing", "status", "params");
  int rank = 0;
  bool fell_back = false;
  for (const auto& r : results) {
    ++rank;
    if (r.timing) {
      char spread[48];
      std::snprintf(spread, sizeof spread, "%.2f..%.2f", r.timing->p20_us, r.timing->p80_us);
      std::fprintf(out, "%4d %8lld %11.2f %21s %8.1f %5d  %-16s %-14s %s\n", rank,
                   static_cast<long long>(r.config_id), r.timing->median_us, spread, r.tflops, r.registers,
                   method_text(r).c_str(), std::string(to_string(r.status)).c_str(),
                   key_value_text(r.params, ' ').c_str());
      fell_back = fell_back || (r.timing->method && !r.timing->method->fallback.empty());
    } else {
      std::fprintf(out, "%4d %8lld %11s %21s %8s %5d  %-16s %-14s %s  (%s)\n", rank,
                   static_cast<long long>(r.config_id), "-", "-", "-", r.registers, "-",
                   std::string(to_string(r.status)).c_str(), key_value_text(r.params, ' ').c_str(),
                   r.message.c_str());
    }
  }
  if (fell_back)
    std::fprintf(out, "single*: a CUDA graph could not be captured; timed single launches instead\n");
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
      if (const auto& method = r.timing->method) {
        item["timing_mode"] = method->graph ? "graph" : "single";
        item["graph_executions"] = method->graph_executions;
        item["flush_l2"] = method->flush_l2;
        if (!method->fallback.empty()) item["timing_fallback"] = method->fallback;
      } else {
        item["timing_mode"] = nullptr;
      }
    } else {
      item["time_us"] = nullptr;
    }
    array.push_back(std::move(item));
  }
  return array;
}

}  // namespace evotune::cli
