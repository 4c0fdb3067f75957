// Reading what a tool's run of `evotune eval` left in its output files: the text, its last line, and the
// status of the evaluation from eval's --json output.
#pragma once

#include <filesystem>
#include <string>

namespace evotune {

// The whole file; empty when it cannot be read.
std::string read_output_file(const std::filesystem::path& file);

// The last non-empty line of `text` (what a program printed last: usually why it stopped).
std::string last_line(const std::string& text);

// "ok", or "STATUS: MESSAGE", from `evotune eval --json`'s output; empty when the text is no such result.
std::string eval_status(const std::string& json_text);

}  // namespace evotune
