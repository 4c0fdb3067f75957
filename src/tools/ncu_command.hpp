// `evotune profile`'s Nsight Compute command line: which kernels of a stored variant to profile, and the ncu
// argument list that profiles exactly those launches of `evotune eval` (see ncu_command.cpp for why exact).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "space/search_space.hpp"
#include "tools/variant_eval_command.hpp"

namespace evotune {

inline constexpr const char* kNcuSets[] = {"full", "detailed", "basic"};

struct ProfileRequest : VariantEval {
  std::string set = "full";          // ncu --set (kNcuSets)
  std::string kernel;                // one kernel of the variant's launches; empty: each of them
  int execution = 1;                 // which execution of the variant (1: the first) is profiled
  std::filesystem::path report;      // the .ncu-rep file written
  std::filesystem::path ncu;         // empty: found in the toolkit (toolkit_program.hpp)
  std::chrono::seconds limit{1800};  // wall time of the profiled eval
  bool details_text = false;         // also read the report's details page as text
  // true: profile as the timing method runs the variant, L2 warm from the executions before (ncu
  // --cache-control none) and the clocks where the GPU's boost and power cap put them (--clock-control none);
  // false: ncu's defaults, caches flushed before each kernel and the SM clock locked at base.
  bool as_timed = false;
};

// The file ncu writes for `-o path`: the path, with ".ncu-rep" added where it lacks it (as ncu adds it).
std::filesystem::path ncu_report_path(const std::filesystem::path& path);

// The kernel names any launch of `space` may run (every Launches entry's, in file order, each once): what
// `--kernel` may name before a GPU says which launches the variant has. The reference kernel is not one.
std::vector<std::string> space_kernel_names(const SearchSpace& space);

// Throws Error when `kernel` is not empty and is none of space_kernel_names(space), listing them.
void require_space_kernel(const SearchSpace& space, const std::string& kernel);

// The kernels launched by one execution of the variant whose launch is `launch` that are profiled, in launch
// order (a kernel the execution launches twice, twice): every step's, or only those named `kernel`. Throws
// Error, listing the variant's kernels, when it launches none named `kernel`.
std::vector<std::string> profiled_launches(const LaunchSpec& launch, const std::string& kernel);

// "a, b, c": kernel names as the messages list them.
std::string joined(const std::vector<std::string>& names);

// ncu's -k filter for `names`: the exact names, anchored, e.g.
// "regex:^(decode_attn_split|decode_attn_combine)$".
std::string kernel_name_filter(const std::vector<std::string>& names);

// The argument list: `ncu` profiling, into request.report with request.set, the `launches` of the variant's
// request.execution-th execution in eval's timed phase, ncu's own output in `log`; then `evotune eval` of
// the variant (kernel_file: the space's template).
std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const ProfileRequest& request,
                                     const std::vector<std::string>& launches,
                                     const std::filesystem::path& kernel_file,
                                     const std::filesystem::path& log);

// `ncu -i report --page PAGE [--csv]`: the report's details or raw page as text.
std::vector<std::string> ncu_import_command(const std::filesystem::path& ncu,
                                            const std::filesystem::path& report, const std::string& page,
                                            bool csv);

}  // namespace evotune
