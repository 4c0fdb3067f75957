// What every kind of export writes the same way: the host side of tensor maps, the space's compiler macros,
// and which arguments the space has.
#pragma once

#include <cstdint>
#include <string>

#include "core/dtype.hpp"
#include "space/search_space.hpp"

namespace evotune {

// Scratch buffers start on this boundary inside the caller's workspace (cudaMalloc's own alignment).
constexpr std::int64_t kScratchAlignment = 256;

const ArgumentDecl* find_argument(const SearchSpace& space, const std::string& name);
bool has_scratch(const SearchSpace& space);
// A caller's buffer: a vector argument that is neither scratch nor a tensor map (which the launcher makes).
bool is_buffer(const ArgumentDecl& argument);
bool has_tensor_map(const SearchSpace& space);
bool has_programmatic_launch(const SearchSpace& space);

// The host side of programmatic launches: `evotune_programmatic_launches(bool* allowed)`, whether the current
// device runs them (compute capability 9.0 and later; below, a Programmatic launch is an ordinary one, as the
// evaluator timed it there), returning the runtime's error where it cannot tell.
const char* programmatic_launch_host();
// The lines that ask it into `bool programmatic` in an exported function that returns the runtime's error
// (a cudaError_t, or the dispatcher's int), each line beginning with `indent`.
std::string programmatic_query_code(const std::string& indent);

// The host side of TensorMap arguments: `evotune_tensor_map_encoder()`, the driver's cuTensorMapEncodeTiled
// found through the runtime (no -lcuda), and `evotune_tensor_map_arg`, which converts an encoded map to
// whatever 128-byte type the kernel declares its parameter as.
const char* tensor_map_host();
// The CUtensorMapDataType enumerator of a buffer's element type.
const char* data_type_name(DType dtype);

// The body of a zeroed scratch buffer's clearing (FillType Zero) in an exported function that takes
// `stream`: a memset of `bytes` (a C++ expression) on the stream, whose error the function returns; each line
// begins with `indent`. Every call runs it before the launches.
std::string scratch_clear_code(const std::string& name, const std::string& bytes, const std::string& indent);

// `text` as a C++ string literal: quoted, with its quotes and backslashes escaped.
std::string cpp_string_literal(const std::string& text);

// The space's CompilerOptions macros (-DBF16=1) as #define lines: the exported file builds without them.
std::string option_defines(const SearchSpace& space);

}  // namespace evotune
