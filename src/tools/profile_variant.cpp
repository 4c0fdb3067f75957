// Runs ncu over `evotune eval` of the variant (ncu_command.cpp: which launches, and why exactly those), then
// ncu --import for the report's pages. ncu's own messages go to a log file, eval's JSON result to stdout's
// file: a failure is told by ncu's exit status and last message, or by eval's status.
#include "tools/profile_variant.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include "core/error.hpp"
#include "core/scratch_dir.hpp"
#include "eval/device_query.hpp"
#include "ipc/captured_run.hpp"
#include "ipc/child_process.hpp"
#include "space/search_space.hpp"
#include "tools/eval_output.hpp"
#include "tools/toolkit_program.hpp"

namespace evotune {
namespace {

constexpr std::chrono::minutes kImportLimit{10};

bool exited_cleanly(const CapturedRun& run) {
  return !run.timed_out && WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 0;
}

// " (LAST LINE)" of the first of `files` that has one, for an error message.
std::string last_message(const std::vector<std::filesystem::path>& files) {
  for (const auto& file : files)
    if (const std::string line = last_line(read_output_file(file)); !line.empty()) return " (" + line + ")";
  return "";
}

void require_gpu(int device) {
  const int gpus = gpu_count();
  if (gpus == 0) throw Error("evotune profile needs a GPU: " + no_gpu_reason());
  if (device < 0 || device >= gpus)
    throw Error("--device " + std::to_string(device) + ": no such GPU (" + std::to_string(gpus) + " found)");
}

// `ncu --import REPORT --page PAGE`'s output. Throws Error naming the command's failure.
std::string import_page(const std::filesystem::path& ncu, const std::filesystem::path& report,
                        const std::string& page, bool csv, const std::filesystem::path& scratch) {
  const auto out = scratch / ("import_" + page + ".out");
  const auto err = scratch / ("import_" + page + ".err");
  const CapturedRun run = run_captured(ncu_import_command(ncu, report, page, csv), out, err, kImportLimit);
  if (!exited_cleanly(run))
    throw Error("ncu --import " + report.string() + " --page " + page + " " +
                (run.timed_out ? "did not finish within 10 minutes" : describe_exit(run.wait_status)) +
                last_message({err, out}));
  return read_output_file(out);
}

}  // namespace

std::filesystem::path ncu_program(const ProfileRequest& request) {
  if (!request.ncu.empty()) return require_program("ncu", request.ncu);
  return find_toolkit_program(
      "ncu", "it comes with Nsight Compute (in the CUDA toolkit's full install); give its path with --ncu");
}

ProfileResult profile_variant(const ProfileRequest& request) {
  const SearchSpace space = SearchSpace::load(request.space_file);
  require_space_kernel(space, request.kernel);  // what needs no GPU first: a name no launch of the space has
  const std::filesystem::path ncu = ncu_program(request);
  require_gpu(request.device);
  ProfileResult result;
  const DeviceInfo device = query_gpu(request.device);
  result.device = device.name;
  result.problem = space.resolve_problem(request.problem);
  result.launches =
      profiled_launches(space.variant_launch(request.params, result.problem, device), request.kernel);
  result.report = request.report;

  const ScratchDir scratch("profile");
  if (scratch.path().empty()) throw Error("cannot make a temporary folder for ncu's output");
  if (request.report.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(request.report.parent_path(), error);
    if (error) throw Error("cannot make " + request.report.parent_path().string() + ": " + error.message());
  }
  std::error_code ignored;
  std::filesystem::remove(request.report, ignored);  // so that a report found afterwards is this run's
  const auto log = scratch.path() / "ncu.log", out = scratch.path() / "eval.out",
             err = scratch.path() / "eval.err";
  spdlog::info("ncu --set {} of {} {}: {} ...", request.set, space.name(), key_value_text(request.params),
               kernel_name_filter(result.launches));
  const CapturedRun run =
      run_captured(ncu_command(ncu, request, result.launches, space.kernel().file, log), out, err,
                   std::chrono::duration_cast<std::chrono::milliseconds>(request.limit));
  if (run.timed_out)
    throw Error("ncu did not finish within " + std::to_string(request.limit.count()) + " s (--limit-s)");
  const std::string status = eval_status(read_output_file(out));
  if (!exited_cleanly(run))
    throw Error(ncu.string() + " " + describe_exit(run.wait_status) + last_message({log, err}) +
                (status.empty() ? "" : "; evotune eval: " + status));
  if (status != "ok")
    throw Error("evotune eval under ncu did not time the variant: " +
                (status.empty() ? "no result" + last_message({err}) : status));
  if (!std::filesystem::is_regular_file(request.report, ignored))
    throw Error("ncu wrote no report " + request.report.string() + " (no kernel launch matched)" +
                last_message({log}));

  result.kernels = read_ncu_details(import_page(ncu, request.report, "details", true, scratch.path()));
  add_ncu_raw_metrics(result.kernels, import_page(ncu, request.report, "raw", true, scratch.path()));
  if (request.details_text)
    result.details_text = import_page(ncu, request.report, "details", false, scratch.path());
  return result;
}

}  // namespace evotune
