// `evotune sanitize`: one variant run under compute-sanitizer's tools, through `evotune eval` and the same
// isolated GPU worker a tune uses (the tool follows the worker process).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/sanitizer_finding.hpp"
#include "space/search_space.hpp"
#include "tools/variant_eval_command.hpp"

namespace evotune {

// The variant (space, problem, params, device, seed) and how to run it under the tools.
struct SanitizeRequest : VariantEval {
  std::vector<std::string> tools;   // of kSanitizerTools (session/sanitizer_report.hpp)
  std::chrono::seconds limit{600};  // wall time per tool; past it the run is failed
};

// compute-sanitizer from $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit the build was configured with,
// /usr/local/cuda/bin, then PATH. Throws Error naming every place tried.
std::filesystem::path find_compute_sanitizer();

// The argument list that runs `evotune eval` of the variant under `tool`, its log written to `log`: one
// validation round, one untimed and one timed launch, launch limits long enough for the tool's slowdown, and
// every buffer at exactly its size (memcheck with a pad after each allocation), so a write past a buffer's
// end is an error memcheck reports.
std::vector<std::string> sanitizer_command(const std::filesystem::path& sanitizer, const std::string& tool,
                                           const std::filesystem::path& log, const SanitizeRequest& request,
                                           const std::filesystem::path& kernel_file);

// Runs each tool in turn and returns what each found (a tool that does not finish is a `failed` finding).
// `space`: request.space_file, loaded. Throws Error for what stops every tool: an unknown tool, no
// compute-sanitizer.
std::vector<SanitizerFinding> sanitize_variant(const SanitizeRequest& request, const SearchSpace& space);

struct SanitizeResult {
  std::string device;  // the GPU's name
  Sizes problem;
  std::vector<SanitizerFinding> findings;
};

// sanitize_variant, then each finding kept in the database `db` with config `config_id` and the problem.
SanitizeResult sanitize_and_store(const SanitizeRequest& request, std::int64_t config_id,
                                  const std::filesystem::path& db);

}  // namespace evotune
