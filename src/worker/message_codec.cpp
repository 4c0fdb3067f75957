// Worker messages as JSON objects; their core parts go through the core serialiser and field reader.
#include "worker/message_codec.hpp"

#include <limits>

#include "core/core_json.hpp"
#include "core/json_fields.hpp"

namespace evotune {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

ordered_json buffers_json(const std::vector<BufferSpec>& buffers) {
  ordered_json json = ordered_json::array();
  for (const auto& buffer : buffers) json.push_back(to_json(buffer));
  return json;
}

ordered_json setup_json(const GpuSetup& setup) {
  ordered_json extra = ordered_json::array();
  for (const auto& problem : setup.extra_problems) {
    ordered_json json = {{"label", problem.label},
                         {"buffers", buffers_json(problem.buffers)},
                         {"reference_launch", to_json(problem.reference_launch)}};
    if (problem.derived_launch) json["derived_launch"] = to_json(*problem.derived_launch);
    extra.push_back(std::move(json));
  }
  ordered_json json = {{"engine", "gpu"},
                       {"device_ordinal", setup.device_ordinal},
                       {"buffers", buffers_json(setup.buffers)},
                       {"reference", to_json(setup.reference)},
                       {"tolerances", to_json(setup.tolerances)},
                       {"settings", to_json(setup.settings)},
                       {"include_dirs", setup.include_dirs},
                       {"extra_problems", extra}};
  if (setup.baseline) json["baseline"] = to_json(*setup.baseline);
  if (setup.derived_inputs) json["derived_inputs"] = to_json(*setup.derived_inputs);
  return json;
}

ordered_json setup_json(const ReplaySetup& setup) {
  return {{"engine", "replay"}, {"sweep_file", setup.sweep_file}, {"delay_ms", setup.delay_ms}};
}

GpuSetup gpu_setup_from(const Fields& f) {
  f.only({"engine", "device_ordinal", "buffers", "reference", "tolerances", "settings", "include_dirs",
          "extra_problems", "baseline", "derived_inputs"});
  GpuSetup setup;
  setup.device_ordinal = f.small_integer("device_ordinal");
  for (const Fields& buffer : f.objects("buffers")) setup.buffers.push_back(buffer_from_json(buffer));
  setup.reference = kernel_from_json(f.object("reference"));
  setup.tolerances = tolerances_from_json(f.object("tolerances"));
  setup.settings = settings_from_json(f.object("settings"));
  setup.include_dirs = f.texts("include_dirs");
  for (const Fields& extra : f.objects("extra_problems")) {
    extra.only({"label", "buffers", "reference_launch", "derived_launch"});
    ExtraProblem& problem = setup.extra_problems.emplace_back();
    problem.label = extra.text("label");
    for (const Fields& buffer : extra.objects("buffers")) problem.buffers.push_back(buffer_from_json(buffer));
    problem.reference_launch = launch_from_json(extra.object("reference_launch"));
    if (extra.has("derived_launch"))
      problem.derived_launch = launch_from_json(extra.object("derived_launch"));
  }
  if (f.has("baseline")) setup.baseline = gemm_baseline_from_json(f.object("baseline"));
  if (f.has("derived_inputs")) setup.derived_inputs = kernel_from_json(f.object("derived_inputs"));
  return setup;
}

ReplaySetup replay_setup_from(const Fields& f) {
  f.only({"engine", "sweep_file", "delay_ms"});
  return {f.text("sweep_file"), f.number("delay_ms")};
}

ordered_json answer_json(const ReadyAnswer& ready) {
  return {{"type", "ready"}, {"device", to_json(ready.device)}, {"reference_ms", ready.reference_ms}};
}

ordered_json answer_json(const SetupErrorAnswer& error) {
  return {{"type", "setup_error"}, {"message", error.message}};
}

ordered_json answer_json(const ResultAnswer& result) {
  return {{"type", "result"},
          {"ticket", result.ticket},
          {"outcome", to_json(result.outcome)},
          {"healthy", result.healthy}};
}

WorkerAnswer answer_from(const Fields& f) {
  const std::string type = f.text("type");
  if (type == "ready") {
    f.only({"type", "device", "reference_ms"});
    return ReadyAnswer{device_from_json(f.object("device")), f.number("reference_ms")};
  }
  if (type == "setup_error") {
    f.only({"type", "message"});
    return SetupErrorAnswer{f.text("message")};
  }
  if (type != "result") f.fail("type", "unknown answer type '" + type + "'");
  f.only({"type", "ticket", "outcome", "healthy"});
  return ResultAnswer{f.integer("ticket", std::numeric_limits<std::int64_t>::min()),
                      outcome_from_json(f.object("outcome")), f.boolean("healthy")};
}

}  // namespace

json encode(const WorkerSetup& setup) {
  return json(std::visit([](const auto& s) { return setup_json(s); }, setup));
}

WorkerSetup decode_setup(const json& message) {
  const Fields f(message, "", "setup message");
  const std::string engine = f.text("engine");
  if (engine == "gpu") return gpu_setup_from(f);
  if (engine == "replay") return replay_setup_from(f);
  f.fail("engine", "unknown engine '" + engine + "'");
}

json encode(const JobMessage& job) {
  ordered_json message = {{"ticket", job.ticket},
                          {"config", job.config},
                          {"validation_seed", job.validation_seed},
                          {"launch_limit_ms", job.launch_limit_ms},
                          {"limit_basis", job.limit_basis}};
  if (job.kernel) message["kernel"] = to_json(*job.kernel);
  ordered_json extra = ordered_json::array();
  for (const auto& launch : job.extra_launches) extra.push_back(to_json(launch));
  message["extra_launches"] = extra;
  message["timing_only"] = job.timing_only;
  if (job.baseline_algorithm >= 0) message["baseline_algorithm"] = job.baseline_algorithm;
  if (job.cut_slow_us > 0) message["cut_slow_us"] = job.cut_slow_us;
  if (job.deterministic) message["deterministic"] = *job.deterministic;
  return json(message);
}

JobMessage decode_job(const json& message) {
  const Fields f(message, "", "job message");
  f.only({"ticket", "config", "validation_seed", "launch_limit_ms", "limit_basis", "kernel", "extra_launches",
          "timing_only", "baseline_algorithm", "cut_slow_us", "deterministic"});
  JobMessage job;
  job.ticket = f.integer("ticket", std::numeric_limits<std::int64_t>::min());
  job.config = f.int_map("config");
  job.validation_seed = f.unsigned_integer("validation_seed");
  job.launch_limit_ms = f.number("launch_limit_ms");
  job.limit_basis = f.text("limit_basis");
  if (f.has("kernel")) job.kernel = kernel_from_json(f.object("kernel"));
  for (const Fields& launch : f.objects("extra_launches"))
    job.extra_launches.push_back(launch_from_json(launch));
  job.timing_only = f.boolean("timing_only");
  if (f.has("baseline_algorithm")) job.baseline_algorithm = f.small_integer("baseline_algorithm");
  if (f.has("cut_slow_us")) job.cut_slow_us = f.number("cut_slow_us");
  if (f.has("deterministic")) job.deterministic = f.boolean("deterministic");
  return job;
}

json encode(const WorkerAnswer& answer) {
  return json(std::visit([](const auto& a) { return answer_json(a); }, answer));
}

WorkerAnswer decode_answer(const json& message) { return answer_from(Fields(message, "", "worker answer")); }

}  // namespace evotune
