// `evotune profile`: one stored variant's timed launch profiled by Nsight Compute through `evotune eval`,
// the report kept and summarised per kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "tools/ncu_command.hpp"
#include "tools/ncu_summary.hpp"

namespace evotune {

struct ProfileResult {
  std::string device;  // the GPU's name
  Sizes problem;
  std::vector<std::string> launches;   // the kernel launches profiled, in order
  std::filesystem::path report;        // the .ncu-rep written
  std::vector<KernelProfile> kernels;  // the report's summary
  std::string details_text;            // the details page as text, where request.details_text asked for it
};

// The ncu to run: request.ncu where given (Error unless it is an executable file), else the toolkit's.
std::filesystem::path ncu_program(const ProfileRequest& request);

// Profiles the variant, then reads the report back (ncu --import) for the summary (and the details page as
// text, where asked). Throws Error, in one line, when no GPU is there,
// ncu is missing or fails (its exit status and last message), eval does not time the variant (its status),
// or ncu wrote no report.
ProfileResult profile_variant(const ProfileRequest& request);

}  // namespace evotune
