// The body of a template's GPU test: one variant through `evotune eval` against its space's reference,
// checked the way every template's test checks it, and the skip for templates that need wgmma.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cuda/driver.hpp"
#include "eval/device_query.hpp"
#include "support/run_command.hpp"

namespace evotune::test {

// Why a test needs a GPU it does not have: "" when a GPU is present and, with `wgmma`, is of compute
// capability 9.0, which alone has wgmma (sm_90a). Use as `if (auto why = ...; !why.empty()) GTEST_SKIP() <<
// why;`.
inline std::string missing_gpu(bool wgmma) {
  if (cuda::device_count() == 0) return cuda::no_device_reason();
  if (!wgmma) return "";
  const DeviceInfo device = query_gpu(0);
  if (device.cc_major * 10 + device.cc_minor != 90)
    return device.name + " is not compute capability 9.0, which alone has wgmma";
  return "";
}

// `evotune eval KERNEL --json --space SPACE --problem PROBLEM --params PARAMS`: exits 0, the variant is ok,
// and validation ran `rounds` rounds (`rounds_are` says which, for the failure message). Prints one line
// (time, largest error, registers) and returns eval's JSON, or null after recording a failure that leaves
// none.
inline nlohmann::json eval_variant(const std::string& kernel, const std::string& space,
                                   const std::string& problem, const std::string& params, int rounds,
                                   const std::string& rounds_are) {
  const auto result = run_evotune("eval " + kernel + " --json --space " + space + " --problem " + problem +
                                  " --params " + params);
  if (result.exit_code != 0) {
    ADD_FAILURE() << "evotune eval exited with " << result.exit_code << ": " << result.err;
    return nullptr;
  }
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("status"), "ok") << json.dump(2);
  EXPECT_EQ(json.at("validation").at("rounds"), rounds) << rounds_are;
  std::printf("%s %s %s: %s us, max_abs %s, %s registers\n", space.c_str(), problem.c_str(), params.c_str(),
              json.at("time_us").dump().c_str(), json.at("error").at("max_abs").dump().c_str(),
              json.at("resources").at("registers").dump().c_str());
  return json;
}

}  // namespace evotune::test
