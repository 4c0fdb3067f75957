// Renders a variant's source: the template with its parameters baked in as #define lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace evotune {

struct KernelSource {
  std::string text;       // what NVRTC compiles
  std::string file_name;  // the template's file name, for compiler messages
  std::string hash;       // hex_hash(text): same config, same source, same hash
};

// `constants` become `#define NAME VALUE` lines (in name order) ahead of the template's code. The template's
// header prefix (header_prefix_length) comes first, unchanged, then a `;` line, then the #define lines:
// NVRTC's automatic precompiled header covers the source up to its first token, so every variant of a
// template shares one (its headers, parsed once per compiler process), and the headers never see the
// parameters. With `line_directive`, a #line directive follows the #define lines so that compiler messages
// point into the template file. A template without leading #include lines gets the #define lines first.
// With `include_folder` (the template's folder), the template's own headers (quoted #includes of files beside
// it, such as kernels/common/sm90/) are inlined where they are included (gen/local_includes.hpp): those of
// the header prefix stay ahead of the parameters, so that they never see them.
KernelSource render_source(const std::string& template_text, const std::string& file_name,
                           const std::map<std::string, std::int64_t>& constants, bool line_directive = true,
                           const std::filesystem::path& include_folder = {});

// Length of the template's header prefix: its leading blank, comment and #include lines, up to and including
// the last #include line before any other directive or code; 0 when there is none.
std::size_t header_prefix_length(const std::string& template_text);

}  // namespace evotune
