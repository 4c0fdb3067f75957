// A short summary of an Nsight Compute report, per profiled kernel, from the pages `ncu --import REPORT
// --page details --csv` and `--page raw --csv` print.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace evotune {

// A metric as ncu printed it: its value (thousands separators kept) and unit; empty where the report has
// none.
struct NcuValue {
  std::string value;
  std::string unit;
};

struct KernelProfile {
  std::string id;  // ncu's result ID
  std::string kernel, grid, block;
  NcuValue duration, sm_frequency, registers, static_smem, dynamic_smem, achieved_occupancy, dram_throughput;
  // Tensor pipes' active cycles, % of peak ("hmma", "gmma", ...): from the raw page, where the set has them.
  std::vector<std::pair<std::string, double>> tensor_pipes;
  // The warp-stall reasons with the most cycles per issued instruction, at most three, highest first.
  std::vector<std::pair<std::string, double>> top_stalls;
};

// One entry per profiled kernel, in the details page's order. Throws Error when the text has no details
// header ("ID", ..., "Metric Name", "Metric Unit", "Metric Value").
std::vector<KernelProfile> read_ncu_details(const std::string& csv);

// Adds the tensor-pipe and warp-stall figures of the raw page to the kernels of the same ID. Throws Error
// when the text has no raw header ("ID", ..., one column per metric, a row of units, a row per kernel).
void add_ncu_raw_metrics(std::vector<KernelProfile>& kernels, const std::string& csv);

// A few lines per kernel: name, grid and block; duration, SM frequency; registers, shared memory, achieved
// occupancy; DRAM and tensor pipes; top stalls. A figure the report lacks is left out.
std::string format_kernel_profiles(const std::vector<KernelProfile>& kernels);

}  // namespace evotune
