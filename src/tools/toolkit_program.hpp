// Finding one of the CUDA toolkit's programs (compute-sanitizer, ncu) on this machine.
#pragma once

#include <filesystem>
#include <string>

namespace evotune {

// `name` from $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit the build was configured with, /usr/local/cuda/bin,
// then PATH: the first executable file. Throws Error naming the places tried and `install_hint`.
std::filesystem::path find_toolkit_program(const std::string& name, const std::string& install_hint);

// `file` itself (a path the user gave): Throws Error "NAME not found: FILE is not an executable file".
std::filesystem::path require_program(const std::string& name, const std::filesystem::path& file);

}  // namespace evotune
