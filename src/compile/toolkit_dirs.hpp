// Where the CUDA toolkit's headers and programs may be, in the order they are tried: $CUDA_HOME, $CUDA_PATH,
// the toolkit the build was configured with, /usr/local/cuda. One list for NVRTC's include path and for
// finding compute-sanitizer.
#pragma once

#include <string>
#include <vector>

namespace evotune {

// Candidate include dirs: $CUDA_HOME/include, $CUDA_PATH/include, the configured include dirs,
// /usr/local/cuda/include.
std::vector<std::string> toolkit_include_candidates();
// Candidate dirs of the toolkit's programs: $CUDA_HOME/bin, $CUDA_PATH/bin, the configured bin dir,
// /usr/local/cuda/bin, then each dir of $PATH.
std::vector<std::string> toolkit_bin_candidates();

}  // namespace evotune
