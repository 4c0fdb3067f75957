// The `evotune eval` command line of one stored variant, which the tools beside a tune (compute-sanitizer,
// Nsight Compute) run inside themselves: one way to name the variant, each tool adding its own eval options.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace evotune {

struct VariantEval {
  std::filesystem::path space_file;
  std::string problem;  // "B=1,S=512": the space's sizes for the variant
  Config params;        // the variant's tuning parameters
  int device = 0;
  std::string evotune;     // this binary, which the tool runs as `evotune eval`
  std::uint64_t seed = 1;  // the validation inputs' seed
};

// {evotune, "eval", kernel_file, --space, --params, --device, --seed}, then `eval_options`, then --problem
// where one is given.
std::vector<std::string> variant_eval_command(const VariantEval& variant,
                                              const std::filesystem::path& kernel_file,
                                              const std::vector<std::string>& eval_options);

}  // namespace evotune
