// Writing a command's output file: the whole text, or an Error naming the file.
#pragma once

#include <filesystem>
#include <string>

namespace evotune::cli {

// Creates or replaces `file` with `text`. Throws Error "cannot write FILE".
void write_output_file(const std::filesystem::path& file, const std::string& text);

}  // namespace evotune::cli
