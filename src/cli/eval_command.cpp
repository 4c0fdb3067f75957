// `evotune eval KERNEL.cu --space SPACE`: one kernel written elsewhere, validated and timed against the
// space's reference and buffers in an isolated GPU worker; prints one result (JSON with --json).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "cli/timing_option.hpp"
#include "core/core_json.hpp"
#include "tools/kernel_file_eval.hpp"

namespace evotune::cli {
namespace {

struct EvalOptions {
  KernelFileRequest request;
  bool json = false;
};

nlohmann::ordered_json result_json(const KernelFileResult& r) {
  const Outcome& o = r.outcome;
  nlohmann::ordered_json json;
  json["status"] = to_string(o.status);
  json["message"] = o.message;
  json["time_us"] = o.timing ? nlohmann::ordered_json(o.timing->median_us) : nullptr;
  json["tflops"] = o.timing ? nlohmann::ordered_json(r.tflops) : nullptr;
  json["gbps"] = o.timing ? nlohmann::ordered_json(r.gbps) : nullptr;
  json["timing"] = o.timing ? to_json(*o.timing) : nullptr;
  // The mode the time was taken in (single or graph; a graph that fell back says so in timing.method).
  const std::optional<TimingMethod> method = o.timing ? o.timing->method : std::nullopt;
  json["timing_mode"] = method ? nlohmann::ordered_json(method->graph ? "graph" : "single") : nullptr;
  json["graph_executions"] =
      method && method->graph ? nlohmann::ordered_json(method->graph_executions) : nullptr;
  json["error"] = o.error ? to_json(*o.error) : nullptr;
  json["validation"] = {{"rounds", o.validation_rounds}, {"seed", o.validation_seed}};
  // The compile's figures as core writes them (registers, shared memory, spills, times, the ptxas log).
  json["resources"] = to_json(o.compile);
  nlohmann::ordered_json launches = nlohmann::ordered_json::array();
  for (const auto& launched : r.launched) {
    nlohmann::ordered_json launch = {{"kernel", launched.kernel}};
    if (launched.programmatic)
      launch["programmatic"] = true;  // absent otherwise: earlier outputs keep theirs
    launch.update(to_json(launched.info));
    launches.push_back(std::move(launch));
  }
  json["launches"] = launches;
  json["kernel"] = r.kernel_name;
  json["space"] = r.space;
  json["problem"] = r.problem;
  json["params"] = r.params;
  json["device"] = r.device.name;
  json["arch"] = r.arch;
  json["reference_ms"] = r.reference_ms;
  return json;
}

void run(EvalOptions options) {
  options.request.worker_command = {self_path(), "worker"};
  const KernelFileResult result = evaluate_kernel_file(options.request);
  if (options.json) {
    std::printf("%s\n",
                result_json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  const Outcome& o = result.outcome;
  std::printf("%s on %s (%s), %s %s: %s", result.kernel_name.c_str(), result.device.name.c_str(),
              result.arch.c_str(), result.space.c_str(), key_value_text(result.problem).c_str(),
              std::string(to_string(o.status)).c_str());
  if (o.timing)
    std::printf(", %.2f us (p20 %.2f, p80 %.2f; %s), %.1f TFLOP/s, %.1f GB/s", o.timing->median_us,
                o.timing->p20_us, o.timing->p80_us,
                o.timing->method ? describe(*o.timing->method).c_str() : "timing method unknown",
                result.tflops, result.gbps);
  else
    std::printf(": %s", o.message.c_str());
  std::printf("; %d registers, %d spill bytes\n", o.compile.registers, o.compile.spill_store_bytes);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "eval", "Validate and time one kernel file against a space's reference and buffers (needs a GPU)");
  auto options = std::make_shared<EvalOptions>();
  KernelFileRequest& r = options->request;
  command->add_option("kernel", r.kernel_file, "CUDA C++ file with the extern \"C\" kernel")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--space", r.space_file, "Search-space JSON file: reference, buffers, geometry")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--problem", r.problem,
                      "Problem sizes, e.g. B=1,H=8,S=512,D=64 (default: the space's)");
  command->add_option("--params", r.params,
                      "Tuning-parameter values for the space's launch geometry, e.g. BLOCK_M=64,WARPS=4 "
                      "(others: their first value); also #defined for the kernel");
  command->add_option("--kernel-name", r.kernel_name,
                      "Kernel symbol of the first launch (default: the space's)");
  command->add_option("--device", r.device, "GPU ordinal")->capture_default_str();
  command->add_option("--seed", r.seed, "Seed of the validation inputs")->capture_default_str();
  command->add_option("--validation-rounds", r.eval.validation_rounds, "Validation rounds on fresh inputs")
      ->capture_default_str()
      ->check(in_range(1, 64));
  add_timing_options(*command, &r.eval);
  command->add_flag("--json", options->json, "Print the result as one JSON object");
  command->add_flag_callback(
      "--exact-buffers", [options] { options->request.eval.guard_margins = false; },
      "Allocate every buffer at exactly its size, without the guard margins that detect out_of_bounds, and "
      "skip the space's extra problems: for compute-sanitizer's memcheck (evotune sanitize), which then sees "
      "a "
      "write past a buffer's end and names the buffer from the allocations logged");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
