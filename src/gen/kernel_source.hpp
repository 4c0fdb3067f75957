// Renders a variant's source: the template with its parameters baked in as #define lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace evotune {

struct KernelSource {
  std::string text;       // what NVRTC compiles
  std::string file_name;  // the template's file name, for compiler messages
  std::string hash;       // hex_hash(text): same config, same source, same hash
};

// `constants` become `#define NAME VALUE` lines (in name order) ahead of the template. With `line_directive`,
// a #line directive follows them so compiler messages point into the template file.
KernelSource render_source(const std::string& template_text, const std::string& file_name,
                           const std::map<std::string, std::int64_t>& constants, bool line_directive = true);

}  // namespace evotune
