// Which launches are profiled, and why they are exactly the variant's full-size timed ones.
//
// `evotune eval` launches many kernels before it times the variant: the reference (validation and its own
// timing), the fill and compare kernels, the variant in every validation round (special-input rounds too)
// and at every extra problem size (Validation.ExtraProblems), and a variant of several launches runs each
// of its kernels every time. Counting those to set --launch-skip breaks whenever a space or eval changes.
// Instead the evaluator opens an NVTX range (core/timed_range.hpp) around its timed executions and nothing
// else (GpuEvaluator::time_single, time_graph), and ncu profiles only kernels inside it (--nvtx
// --nvtx-include). eval runs with --timing single --warmup E-1 --reps 1: E-1 untimed executions, then one
// timed execution of the main problem inside the range. The -k filter names the chosen kernels exactly
// (anchored, so decode_attn does not match decode_attn_ref), and --launch-count is the number of chosen
// launches one execution makes, so ncu profiles each of them once and nothing more. (Other work timed inside
// the range, a tune's cuBLASLt baseline, runs kernels of other names, which the filter leaves out.)
#include "tools/ncu_command.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/timed_range.hpp"

namespace evotune {
namespace {

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// A kernel symbol is an identifier; anything else ncu's regex would read as syntax is escaped all the same.
std::string regex_escaped(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::filesystem::path ncu_report_path(const std::filesystem::path& path) {
  if (path.extension() == ".ncu-rep") return path;
  return path.string() + ".ncu-rep";
}

std::vector<std::string> space_kernel_names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const LaunchDecl& launch : space.launches()) add_once(names, launch.kernel.name);
  return names;
}

void require_space_kernel(const SearchSpace& space, const std::string& kernel) {
  if (kernel.empty()) return;
  const std::vector<std::string> names = space_kernel_names(space);
  if (std::find(names.begin(), names.end(), kernel) == names.end())
    throw Error("--kernel " + kernel + ": no launch of " + space.name() +
                " runs it (its kernels: " + joined(names) + ")");
}

std::vector<std::string> profiled_launches(const LaunchSpec& launch, const std::string& kernel) {
  std::vector<std::string> all;
  for (const LaunchSpec* step : launch_steps(launch)) all.push_back(step->kernel_name);
  if (kernel.empty()) return all;
  std::vector<std::string> chosen;
  std::copy_if(all.begin(), all.end(), std::back_inserter(chosen),
               [&](const std::string& name) { return name == kernel; });
  if (chosen.empty()) {
    std::vector<std::string> distinct;
    for (const auto& name : all) add_once(distinct, name);
    throw Error("--kernel " + kernel + ": this variant does not launch it (it launches: " + joined(distinct) +
                ")");
  }
  return chosen;
}

std::string kernel_name_filter(const std::vector<std::string>& names) {
  std::vector<std::string> distinct;
  for (const auto& name : names) add_once(distinct, regex_escaped(name));
  std::string alternatives;
  for (const auto& name : distinct) alternatives += (alternatives.empty() ? "" : "|") + name;
  return "regex:^(" + alternatives + ")$";
}

std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const ProfileRequest& request,
                                     const std::vector<std::string>& launches,
                                     const std::filesystem::path& kernel_file,
                                     const std::filesystem::path& log) {
  if (launches.empty()) throw Error("internal: no kernel launch to profile");
  if (request.execution < 1) throw Error("--launch " + std::to_string(request.execution) + ": counts from 1");
  std::vector<std::string> command{ncu.string(),
                                   "--target-processes",  // the kernels run in eval's GPU worker process
                                   "all",
                                   "--nvtx",
                                   "--nvtx-include",
                                   std::string(kTimedRangeName) + "/",
                                   "--kernel-name",
                                   kernel_name_filter(launches),
                                   "--launch-count",
                                   std::to_string(launches.size()),
                                   "--set",
                                   request.set,
                                   "--import-source",
                                   "yes",
                                   "--force-overwrite",
                                   "--export",
                                   request.report.string(),
                                   "--log-file",
                                   log.string()};
  if (request.as_timed) command.insert(command.end(), {"--cache-control", "none", "--clock-control", "none"});
  const std::vector<std::string> eval = variant_eval_command(
      request, kernel_file,
      {"--validation-rounds", "1", "--timing", "single", "--warmup", std::to_string(request.execution - 1),
       "--warmup-ms", "0", "--reps", "1", "--flush-l2", "off", "--json"});
  command.insert(command.end(), eval.begin(), eval.end());
  return command;
}

std::vector<std::string> ncu_import_command(const std::filesystem::path& ncu,
                                            const std::filesystem::path& report, const std::string& page,
                                            bool csv) {
  std::vector<std::string> command{ncu.string(), "--import", report.string(), "--page", page};
  if (csv) command.push_back("--csv");
  return command;
}

}  // namespace evotune
