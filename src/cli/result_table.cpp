// Ranked results as an aligned table or as JSON.
#include "cli/result_table.hpp"

#include <string>

#include "store/noise_band.hpp"

namespace evotune::cli {
namespace {

// "graph x12 flush", "single no-flush"; "-" for a result timed before the method was stored.
std::string method_text(const RankedResult& r) {
  return r.timing && r.timing->method ? short_text(*r.timing->method) : "-";
}

// The first ok result: the one the others are judged against.
const RankedResult* winner_of(const std::vector<RankedResult>& results) {
  for (const auto& r : results)
    if (r.status == Status::ok && r.timing) return &r;
  return nullptr;
}

bool marked_within_noise(const RankedResult& r, const RankedResult* winner) {
  return winner && &r != winner && within_noise(r, *winner);
}

}  // namespace

void print_result_table(const std::vector<RankedResult>& results, std::FILE* out) {
  if (results.empty()) {
    std::fprintf(out, "no results\n");
    return;
  }
  bool remeasured = false, fell_back = false, near = false, energy = false;
  for (const auto& r : results) {
    remeasured = remeasured || r.remeasured;
    energy = energy || r.energy;
  }
  const RankedResult* winner = winner_of(results);
  // Energy columns only where some result has an energy (tune --energy or --objective energy|edp).
  const auto energy_text = [&](const RankedResult& r) -> std::string {
    if (!energy) return "";
    char text[48];
    if (r.energy)
      std::snprintf(text, sizeof text, " %10.1f %6.0f", r.energy->uj_per_execution, r.energy->avg_power_w);
    else
      std::snprintf(text, sizeof text, " %10s %6s", "-", "-");
    return text;
  };
  std::fprintf(out, "%5s %8s %12s %21s %8s %5s%s  %-16s %-14s %s\n", "rank", "config", "median_us",
               remeasured ? "spread_us" : "p20..p80_us", "TFLOP/s", "regs",
               energy ? "    uJ/exec      W" : "", "timing", "status", "params");
  int rank = 0;
  for (const auto& r : results) {
    ++rank;
    const bool within = marked_within_noise(r, winner);
    near = near || within;
    const std::string rank_text = (within ? "~" : "") + std::to_string(rank);
    if (r.timing) {
      // A rerank's median and its fastest..slowest round where there is one; TFLOP/s at that median.
      const double median = r.reported_us();
      const auto [low, high] = noise_band(r);
      char time[32], spread[48];
      std::snprintf(time, sizeof time, "%.2f%s", median, r.remeasured ? "r" : " ");
      std::snprintf(spread, sizeof spread, "%.2f..%.2f", low, high);
      std::fprintf(out, "%5s %8lld %12s %21s %8.1f %5d%s  %-16s %-14s %s\n", rank_text.c_str(),
                   static_cast<long long>(r.config_id), time, spread, r.tflops * r.timing->median_us / median,
                   r.registers, energy_text(r).c_str(), method_text(r).c_str(),
                   std::string(to_string(r.status)).c_str(), key_value_text(r.params, ' ').c_str());
      fell_back = fell_back || (r.timing->method && !r.timing->method->fallback.empty());
    } else {
      std::fprintf(out, "%5s %8lld %12s %21s %8s %5d%s  %-16s %-14s %s  (%s)\n", rank_text.c_str(),
                   static_cast<long long>(r.config_id), "- ", "-", "-", r.registers, energy_text(r).c_str(),
                   "-", std::string(to_string(r.status)).c_str(), key_value_text(r.params, ' ').c_str(),
                   r.message.c_str());
    }
  }
  if (remeasured)
    std::fprintf(out,
                 "r: re-measured after the search (tune --rerank): the median of its interleaved rounds, the "
                 "spread its fastest..slowest round; others: the median and p20..p80 of their measurement\n");
  if (near) std::fprintf(out, "~: within noise of the winner (their spreads overlap)\n");
  if (energy)
    std::fprintf(
        out,
        "uJ/exec, W: energy per execution and average power, from NVML's energy counter around a loop "
        "of executions (tune --energy)\n");
  if (fell_back)
    std::fprintf(out, "single*: a CUDA graph could not be captured; timed single launches instead\n");
}

nlohmann::json results_json(const std::vector<RankedResult>& results) {
  nlohmann::json array = nlohmann::json::array();
  const RankedResult* winner = winner_of(results);
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
        if (!method->cut.empty()) item["timing_cut"] = method->cut;
      } else {
        item["timing_mode"] = nullptr;
      }
      if (const auto& r2 = r.remeasured) {
        item["remeasured"] = {{"position", r2->position},
                              {"median_us", r2->median_us},
                              {"min_us", r2->min_us},
                              {"max_us", r2->max_us},
                              {"rounds", r2->round_medians_us.size()},
                              {"round_medians_us", r2->round_medians_us}};
      } else {
        item["remeasured"] = nullptr;
      }
      item["within_noise"] = marked_within_noise(r, winner);
    } else {
      item["time_us"] = nullptr;
    }
    if (r.energy)
      item["energy"] = {{"uj_per_execution", r.energy->uj_per_execution},
                        {"avg_power_w", r.energy->avg_power_w},
                        {"window_ms", r.energy->window_ms},
                        {"executions", r.energy->executions}};
    else
      item["energy"] = nullptr;
    array.push_back(std::move(item));
  }
  return array;
}

}  // namespace evotune::cli
