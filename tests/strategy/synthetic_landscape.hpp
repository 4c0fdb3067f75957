// A synthetic tuning landscape shaped like the attention space, and a driver that runs a strategy on it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strategy/strategy.hpp"

namespace evotune::testing {

// Seven parameters with the attention template's values and constraints (D = 64, 227 KiB of shared
// memory): 1980 valid configs. The time is a smooth function with interactions between the tile sizes and a
// second, slightly worse basin; about a tenth of the configs fail (register and pipeline limits).
class AttentionLandscape {
 public:
  AttentionLandscape() {
    values_ = {{"BLOCK_M", {16, 32, 48, 64, 96, 128}},
               {"BLOCK_N", {16, 32, 48, 64, 128}},
               {"WARPS", {1, 2, 4, 8}},
               {"PAD", {0, 8, 16}},
               {"STAGES", {1, 2, 3}},
               {"WARP_SPEC", {0, 1}},
               {"P_FP32", {0, 1}}};
    for (ParamValue m : values_["BLOCK_M"])
      for (ParamValue n : values_["BLOCK_N"])
        for (ParamValue w : values_["WARPS"])
          for (ParamValue pad : values_["PAD"])
            for (ParamValue stages : values_["STAGES"])
              for (ParamValue spec : values_["WARP_SPEC"])
                for (ParamValue fp32 : values_["P_FP32"]) {
                  const ParamValue smem =
                      2 * (64 + pad) * (m + 2 * stages * n) + m * (n + pad) * (2 + 4 * fp32) + 12 * m * fp32;
                  if (m % (16 * w) != 0 || m / w > 64 || smem > 232448) continue;
                  Config config{{"BLOCK_M", m},     {"BLOCK_N", n},      {"WARPS", w},    {"PAD", pad},
                                {"STAGES", stages}, {"WARP_SPEC", spec}, {"P_FP32", fp32}};
                  candidates_.push_back(config);
                  if (auto t = time_us(config); t && (!best_us_ || *t < *best_us_)) best_us_ = t;
                }
  }

  const std::vector<Config>& candidates() const { return candidates_; }
  const std::map<std::string, std::vector<ParamValue>>& parameter_values() const { return values_; }
  double best_us() const { return *best_us_; }

  StrategyInput input(std::uint64_t seed) const {
    StrategyInput in;
    in.candidates = candidates_;
    in.parameter_values = values_;
    in.seed = seed;
    return in;
  }

  // nullopt where the config fails.
  static std::optional<double> time_us(const Config& c) {
    const double m = std::log2(c.at("BLOCK_M") / 16.0), n = std::log2(c.at("BLOCK_N") / 16.0);
    const double rows = std::log2(static_cast<double>(c.at("BLOCK_M") / c.at("WARPS")));
    const ParamValue pad = c.at("PAD"), stages = c.at("STAGES"), spec = c.at("WARP_SPEC"),
                     fp32 = c.at("P_FP32");
    if (fp32 == 0 && rows >= 6 && n >= 2) return std::nullopt;                // accumulators + scores spill
    if (spec == 1 && stages == 3 && m >= 2.5 && n >= 2) return std::nullopt;  // producer ring too deep
    double t = 10.0 * (1 + 0.08 * (m - 2) * (m - 2) + 0.05 * (m - 2) * (n - 2)) *
               (1 + 0.06 * (n - 2) * (n - 2)) * (1 + 0.05 * (rows - 5) * (rows - 5));
    t *= pad == 0 ? 1.12 : pad == 8 ? 1.0 : 1.01;
    t *= stages == 1 ? 1.10 : stages == 2 ? 1.0 : 1.015;
    if (spec == 1) t *= stages == 1 ? 1.08 : 0.97;
    if (fp32 == 1) t *= 1.04 + 0.01 * n;
    if (c.at("BLOCK_M") == 16 && c.at("BLOCK_N") == 128) t *= 0.9;  // a second basin, far from the first
    return t;
  }

  static Outcome outcome(const Config& config) {
    Outcome result;
    if (auto t = time_us(config)) {
      result.timing = TimingStats{.median_us = *t,
                                  .min_us = *t,
                                  .mean_us = *t,
                                  .stddev_us = 0,
                                  .p20_us = *t,
                                  .p80_us = *t,
                                  .samples = 1};
    } else {
      result.status = Status::resource_error;
      result.message = "synthetic failure";
    }
    return result;
  }

 private:
  std::map<std::string, std::vector<ParamValue>> values_;
  std::vector<Config> candidates_;
  std::optional<double> best_us_;
};

// Runs a strategy like a session with `window` proposals in flight (observed oldest first), up to `budget`
// evaluations. Returns the configs in the order they were evaluated.
template <typename OutcomeOf>
std::vector<Config> drive(Strategy& strategy, OutcomeOf outcome_of, std::size_t budget,
                          std::size_t window = 4) {
  std::vector<Config> evaluated;
  std::vector<Config> in_flight;
  std::size_t proposed = 0;
  while (true) {
    while (proposed < budget && in_flight.size() < window) {
      auto config = strategy.next();
      if (!config) break;
      in_flight.push_back(*config);
      ++proposed;
    }
    if (in_flight.empty()) return evaluated;
    const Config config = in_flight.front();
    in_flight.erase(in_flight.begin());
    strategy.observe(config, outcome_of(config));
    evaluated.push_back(config);
  }
}

// 1-based position of the first evaluated config within `slack` of best_us; nullopt when none is.
inline std::optional<std::size_t> first_within(const std::vector<Config>& evaluated, double best_us,
                                               double slack = 1.02) {
  for (std::size_t i = 0; i < evaluated.size(); ++i)
    if (auto t = AttentionLandscape::time_us(evaluated[i]); t && *t <= best_us * slack) return i + 1;
  return std::nullopt;
}

// The failure-steering check both learning strategies share: every config with PAD = 0 or WARPS = 1 fails
// (`failure` status) on top of the landscape's own failures. Returns {share of candidates that fail, share of
// proposals after the first 32 that failed}, over seeds 1..5 with 200 evaluations each.
template <typename MakeStrategy>
std::pair<double, double> failure_shares(const AttentionLandscape& land, Status failure, MakeStrategy make) {
  auto outcome = [failure](const Config& config) {
    if (config.at("PAD") == 0 || config.at("WARPS") == 1) {
      Outcome failed;
      failed.status = failure;
      return failed;
    }
    return AttentionLandscape::outcome(config);
  };
  std::size_t failing = 0;
  for (const Config& config : land.candidates()) failing += objective(outcome(config)) ? 0 : 1;
  std::size_t later = 0, later_failed = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto strategy = make(land.input(seed));
    const auto evaluated = drive(*strategy, outcome, 200);
    for (std::size_t i = 32; i < evaluated.size(); ++i, ++later)
      later_failed += objective(outcome(evaluated[i])) ? 0 : 1;
  }
  return {static_cast<double>(failing) / static_cast<double>(land.candidates().size()),
          later == 0 ? 1.0 : static_cast<double>(later_failed) / static_cast<double>(later)};
}

}  // namespace evotune::testing
