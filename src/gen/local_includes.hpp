// Inlines a template's own headers (quoted #includes found beside the including file) into its text, so that
// NVRTC, the compile cache's hash and an exported .cu all see one self-contained source.
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace evotune {

// Expands a template's text, one piece after another (its header prefix, then the rest), each file inlined
// once over all of them.
class LocalIncludes {
 public:
  explicit LocalIncludes(std::filesystem::path folder) : folder_(std::move(folder)) {}

  // `text` (lines `first_line`.. of the template file `file_name` in the folder) with every `#include "path"`
  // line whose path names a file relative to the including file's folder replaced by that file's text,
  // recursively; each file is inlined once (later includes of it become a comment, as `#pragma once` would
  // make them), its `#pragma once` lines dropped, and #line directives keep compiler messages pointing into
  // the right file and line. Includes that name no such file (system headers, NVRTC's own) stay as they are.
  // Throws on includes nested more than 32 deep (a cycle).
  std::string expand(const std::string& text, const std::string& file_name, int first_line = 1);

 private:
  std::filesystem::path folder_;
  std::set<std::filesystem::path> seen_;
};

}  // namespace evotune
