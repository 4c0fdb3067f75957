// Each tool runs `evotune eval` of the variant in its own process group, with a wall-clock limit; its log
// goes to a file (--log-file), the evaluation's JSON result to another. The evaluation allocates every buffer
// at exactly its size (--exact-buffers): the evaluator's guard margins sit inside the same allocation as the
// buffer, so a write past the end landed in memory memcheck counted as valid and it reported a clean run.
#include "tools/sanitize_variant.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "core/error.hpp"
#include "core/scratch_dir.hpp"
#include "eval/device_query.hpp"
#include "ipc/captured_run.hpp"
#include "ipc/child_process.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "tools/eval_output.hpp"
#include "tools/sanitizer_report.hpp"
#include "tools/toolkit_program.hpp"

namespace evotune {
namespace {

// Launch limits under a tool: racecheck and initcheck slow a kernel down by 10 to 1000 times.
constexpr int kLaunchCeilingMs = 300000;
constexpr std::size_t kPaddingBytes = std::size_t{1} << 20;  // memcheck's pad after each allocation

SanitizerFinding run_tool(const std::filesystem::path& sanitizer, const std::string& tool,
                          const SanitizeRequest& request, const std::filesystem::path& kernel_file,
                          const std::filesystem::path& scratch) {
  const auto log = scratch / (tool + ".log");
  const auto out = scratch / (tool + ".out");
  const auto err = scratch / (tool + ".err");
  const auto start = std::chrono::steady_clock::now();
  const CapturedRun run =
      run_captured(sanitizer_command(sanitizer, tool, log, request, kernel_file), out, err,
                   std::chrono::duration_cast<std::chrono::milliseconds>(request.limit));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SanitizerFinding finding = parse_sanitizer_log(tool, read_output_file(log));
  name_the_buffer(finding, parse_allocation_lines(read_output_file(err)));
  finding.seconds = seconds;
  finding.eval_status = eval_status(read_output_file(out));
  if (run.timed_out) {
    finding.verdict = "failed";
    finding.summary = "did not finish within " + std::to_string(request.limit.count()) + " s";
  } else if (finding.verdict == "failed") {  // no summary line: the reason is in what was printed last
    const std::string reason = last_line(read_output_file(err));
    finding.summary =
        "compute-sanitizer " + describe_exit(run.wait_status) + (reason.empty() ? "" : ": " + reason);
  } else if (finding.eval_status.empty()) {  // the tool finished, evotune eval gave no result
    if (const std::string reason = last_line(read_output_file(err)); !reason.empty())
      finding.eval_status = "no result: " + reason;
  }
  return finding;
}

}  // namespace

std::filesystem::path find_compute_sanitizer() {
  return find_toolkit_program("compute-sanitizer",
                              "it comes with the CUDA toolkit; set CUDA_HOME to the toolkit");
}

std::vector<std::string> sanitizer_command(const std::filesystem::path& sanitizer, const std::string& tool,
                                           const std::filesystem::path& log, const SanitizeRequest& request,
                                           const std::filesystem::path& kernel_file) {
  std::vector<std::string> command{sanitizer.string(), "--tool", tool,         "--target-processes", "all",
                                   "--print-limit",    "20",     "--log-file", log.string()};
  if (tool == "racecheck") command.insert(command.end(), {"--racecheck-report", "all"});
  // A pad after every allocation: a write a little past one buffer's end would otherwise land in the next
  // allocation, where memcheck sees a valid address.
  if (tool == "memcheck") command.insert(command.end(), {"--padding", std::to_string(kPaddingBytes)});
  const std::vector<std::string> eval =
      variant_eval_command(request, kernel_file,
                           {"--validation-rounds", "1", "--warmup", "0", "--reps", "1", "--timing", "single",
                            "--timeout-ms", std::to_string(kLaunchCeilingMs), "--json", "--exact-buffers"});
  command.insert(command.end(), eval.begin(), eval.end());
  return command;
}

std::vector<SanitizerFinding> sanitize_variant(const SanitizeRequest& request, const SearchSpace& space) {
  for (const auto& tool : request.tools)
    if (!is_sanitizer_tool(tool))
      throw Error("unknown sanitizer tool '" + tool + "' (memcheck, racecheck, synccheck or initcheck)");
  const std::filesystem::path sanitizer = find_compute_sanitizer();
  const ScratchDir scratch("sanitize");
  if (scratch.path().empty()) throw Error("cannot make a temporary folder for the sanitizer's logs");
  std::vector<SanitizerFinding> findings;
  for (const auto& tool : request.tools) {
    spdlog::info("{} of {} {} ...", tool, space.name(), key_value_text(request.params));
    findings.push_back(run_tool(sanitizer, tool, request, space.kernel().file, scratch.path()));
  }
  return findings;
}

SanitizeResult sanitize_and_store(const SanitizeRequest& request, std::int64_t config_id,
                                  const std::filesystem::path& db) {
  const int gpus = gpu_count();
  if (gpus == 0) throw Error("evotune sanitize needs a GPU: " + no_gpu_reason());
  if (request.device < 0 || request.device >= gpus)
    throw Error("--device " + std::to_string(request.device) + ": no such GPU (" + std::to_string(gpus) +
                " found)");
  SanitizeResult result;
  result.device = query_gpu(request.device).name;
  const SearchSpace space = SearchSpace::load(request.space_file);
  result.problem = space.resolve_problem(request.problem);
  Store store(db);  // opened first: an unusable database stops before minutes under the tools
  result.findings = sanitize_variant(request, space);
  const std::int64_t problem_id = store.upsert_problem(result.problem);
  for (const auto& finding : result.findings)
    store.save_sanitizer_finding(config_id, problem_id, result.device, finding);
  return result;
}

}  // namespace evotune
