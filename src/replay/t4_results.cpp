// Recorded sweep -> T4 results document (kernel_tuner/schema/T4/1.0.0/results-schema.json).
#include "replay/t4_results.hpp"

namespace evotune {

std::string_view t4_invalidity(Status status) {
  switch (status) {
    case Status::ok:
      return "correct";
    case Status::compile_error:
      return "compile";
    case Status::resource_error:
    case Status::launch_error:
      return "runtime";
    case Status::timeout:
      return "timeout";
    case Status::wrong_result:
    case Status::nan:
    case Status::out_of_bounds:
    case Status::nondeterministic:
      return "correctness";
  }
  return "runtime";
}

nlohmann::ordered_json t4_results(const RecordedSweep& sweep) {
  using Json = nlohmann::ordered_json;
  Json results = Json::array();
  for (const auto& result : sweep.results) {
    Json entry;
    entry["configuration"] = Json(result.params);
    entry["times"] = {{"runtimes", Json::array()}};
    const std::string_view invalidity = t4_invalidity(result.status);
    entry["invalidity"] = invalidity;
    entry["correctness"] = invalidity == "correctness" ? 0 : 1;
    Json measurements = Json::array();
    if (result.timing) {
      const TimingStats& t = *result.timing;
      for (const auto& [name, us] :
           {std::pair{"time", t.median_us}, std::pair{"time_min", t.min_us}, std::pair{"time_p20", t.p20_us},
            std::pair{"time_p80", t.p80_us}, std::pair{"time_stddev", t.stddev_us}})
        measurements.push_back({{"name", name}, {"value", us / 1000.0}, {"unit", "ms"}});
      measurements.push_back({{"name", "samples"}, {"value", t.samples}, {"unit", ""}});
    } else {
      measurements.push_back(
          {{"name", "time"}, {"value", std::string(to_string(result.status))}, {"unit", "ms"}});
      measurements.push_back({{"name", "error"}, {"value", result.message}, {"unit", ""}});
    }
    entry["measurements"] = measurements;
    entry["objectives"] = Json::array({"time"});
    results.push_back(std::move(entry));
  }
  return {{"schema_version", "1.0.0"},
          {"metadata",
           {{"timeunit", "milliseconds"},
            {"tuner", "evotune"},
            {"benchmark", sweep.space_name},
            {"space_hash", sweep.space_hash},
            {"problem", Json(sweep.problem)},
            {"device", sweep.device.name},
            {"nvrtc_version", sweep.nvrtc_version}}},
          {"results", results}};
}

}  // namespace evotune
