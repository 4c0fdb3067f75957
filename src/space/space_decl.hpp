// What a space file declares, as plain structs: tuning parameters, conditions, named expressions, problem
// sizes, kernel arguments and launches, the work formula, the seeds, and a config's check against the
// conditions. Read by space_file, checked by space_model, handed out by SearchSpace (search_space.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/dtype.hpp"
#include "core/launch_spec.hpp"

namespace evotune {

struct TuningParameter {
  std::string name;
  std::vector<ParamValue> values;  // in file order; neighbours are adjacent entries
  std::string description;
};

struct Condition {
  std::string name;                     // short label shown when a config is rejected
  std::vector<std::string> parameters;  // T1 "Parameters": the tuning parameters it reads
  std::string expression;               // non-zero = valid
  std::string reason;                   // why the combination is invalid, for the user
};

// An entry of Expressions: a name the later expressions, conditions and geometry can use.
struct NamedExpression {
  std::string name;
  std::string text;
};

struct SizeSpec {
  std::string name;
  std::int64_t default_value = 1;
  std::vector<std::int64_t> allowed;  // empty: any positive value
  bool compile_time = false;          // baked into the kernel source as #define
  // Non-empty: the default is this expression of the sizes declared before it (e.g. "H": as many K/V heads as
  // query heads unless given), so a size added later leaves every earlier problem text meaning what it did.
  std::string default_expression;
};

// A Vector argument's fill as declared: its bounds or value are expressions of the problem sizes (a cache
// length's range can follow the cache), evaluated into a FillSpec for each problem.
struct FillDecl {
  FillSpec::Kind kind = FillSpec::Kind::random_uniform;
  std::string low = "-1";  // random_uniform range
  std::string high = "1";
  std::string value = "0";  // constant
};

// A tensor map's conditional buffer (BufferIf): `buffer` when `condition` (an expression of what the geometry
// sees) is non-zero.
struct MapBufferChoice {
  std::string condition;
  std::string buffer;
};

struct ArgumentDecl {
  std::string name;
  DType dtype = DType::f32;
  bool is_vector = true;        // T1 MemoryType "Vector" (buffer) or "Scalar"; also true for a Scratch buffer
  bool is_scratch = false;      // MemoryType "Scratch": the variant's own buffer, sized per configuration
  bool scratch_zeroed = false;  // Scratch with FillType "Zero": cleared before every execution, not poisoned
  std::string size_expr;        // vector: element count (scratch: may use tuning parameters)
  std::string value_expr;       // scalar: value
  bool is_input = true;
  bool is_output = false;
  FillDecl fill;
  std::vector<FillDecl> special_fills;  // SpecialFills: one more validation round each
  std::string constant_symbol;          // ConstantSymbol: also copied into this __constant__ variable
  // MemoryType "TensorMap" (is_vector false, no value): a TMA tensor map over the Vector or Scratch argument
  // map_buffer, whose type it takes, or over the first of map_buffer_if whose condition holds (BufferIf: a
  // staged copy where the sizes need one); expressions per dimension, innermost first.
  bool is_tensor_map = false;
  std::string map_buffer;
  std::vector<MapBufferChoice> map_buffer_if;
  std::vector<std::string> map_dims;
  std::vector<std::string> map_strides;  // bytes, dims 1..; empty: densely packed
  std::vector<std::string> map_box;
  int map_swizzle_bytes = 0;  // 0, 32, 64, 128
};

struct KernelDecl {
  std::filesystem::path file;                         // resolved against the space file's folder
  std::string name;                                   // extern "C" kernel symbol
  std::array<std::string, 3> grid;                    // GlobalSize X/Y/Z, in blocks (GlobalSizeType "CUDA")
  std::array<std::string, 3> block;                   // LocalSize X/Y/Z, threads
  std::string shared_memory = "0";                    // dynamic shared memory, bytes
  std::array<std::string, 3> cluster{"1", "1", "1"};  // ClusterSize X/Y/Z, blocks (KernelSpecification only)
  std::vector<std::string> arguments;                 // argument names in parameter order
};

// One launch of a variant (an entry of KernelSpecification.Launches, or the single launch of a space without
// them): the kernel, its geometry and argument names, run when `condition` is non-zero.
struct LaunchDecl {
  std::string condition;      // "If"; empty: always
  KernelDecl kernel;          // `file` is the template's
  bool programmatic = false;  // "Programmatic": a programmatic dependent of the launch before it
  // "Programmatic": "always": also where it is the variant's first launch, a programmatic dependent of the
  // kernel the stream ran before the call (the previous call's in a timed graph, the caller's in an export)
  bool programmatic_first = false;
  // "ProgrammaticIf": where it is 0 for a variant, the launch is an ordinary one; empty: wherever it runs
  std::string programmatic_condition = {};
};

struct WorkFormula {
  std::string flops = "0";
  std::string bytes = "0";
};

// An entry of Seeds: a known-good config and the problem it was found for, every size (those its Problem
// omits, all of them without one, at their defaults).
struct Seed {
  Config config;
  Sizes problem;
};

// Result of checking a config against the conditions.
struct ConstraintCheck {
  bool valid = true;
  std::string condition;  // name of the first failed condition
  std::string reason;     // its reason
};

}  // namespace evotune
