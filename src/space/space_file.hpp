// Reading a space file: JSON -> the declared structs, with every structural error naming its field path.
// Expressions stay text here; space_model compiles and checks them.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "space/field.hpp"
#include "space/space_decl.hpp"

namespace evotune {

// A space file read and structurally checked.
struct SpaceFile {
  std::filesystem::path path;
  std::string label;  // the path as given: the prefix of every error message
  std::string json_text;
  std::string name;
  std::vector<TuningParameter> parameters;
  std::vector<Condition> conditions;
  std::vector<SizeSpec> sizes;
  std::vector<NamedExpression> expressions;  // file order
  KernelDecl kernel;
  std::vector<LaunchDecl> launches;  // KernelSpecification.Launches, or the one launch `kernel` describes
  bool launches_listed = false;      // the file has KernelSpecification.Launches
  KernelDecl reference;
  // Reference.Config: the reference is the template itself at this config (no reference kernel of its own).
  std::optional<Config> reference_config;
  std::vector<ArgumentDecl> arguments;  // KernelSpecification.Arguments, in the kernel's order
  std::vector<std::string> compiler_options;
  std::string arch_suffix;
  std::string template_source;
  std::string reference_source;
  // DerivedInputs: the kernel that computes the FillType Derived inputs from the others after every fill (it
  // sees what the reference sees); its source, as read.
  std::optional<KernelDecl> derived;
  std::string derived_source;
  Tolerances tolerances;
  // Validation.Deterministic given as an expression over parameters and sizes (empty: a bool, in tolerances).
  std::string deterministic_expression;
  // Validation.ExtraProblems: per extra problem, the sizes it changes (name -> expression over the sizes).
  std::vector<std::vector<std::pair<std::string, std::string>>> extra_problems;
  WorkFormula work;
  std::optional<std::int64_t> budget;
  std::string baseline;     // Baseline: "cublasLt", or empty
  std::vector<Seed> seeds;  // Seeds, file order
  // A T1 file: the fields read without effect on what is measured (names, paths, output settings).
  std::vector<std::string> t1_ignored;
};

// Throws SpaceError "FILE: Field.Path: what is wrong" (or "FILE:LINE:COLUMN: ..." for malformed JSON).
SpaceFile read_space_file(const std::filesystem::path& file);

// The whole file, or nullopt when it is missing or unreadable.
std::optional<std::string> read_text_file(const std::filesystem::path& file);

// The KernelSpecification and Reference sections (kernel_section.cpp). `folder` resolves relative paths.
void read_kernel_section(const Field& section, const std::filesystem::path& folder, SpaceFile& space);
// A GlobalSize or LocalSize object: X required, Y and Z "1" unless given.
std::array<std::string, 3> read_dims(const Field& field);
// KernelSpecification.Launches (launch_section.cpp), after the arguments are read; without it, the one launch
// of `space.kernel` taking every argument in order.
void read_launches(const Field& section, SpaceFile& space);
void read_reference_section(const Field& section, const std::filesystem::path& folder, SpaceFile& space);
// KernelFile, KernelName, GlobalSize, LocalSize and SharedMemory of a section: what KernelSpecification,
// Reference and DerivedInputs share. `source` gets the kernel file's text.
void read_kernel_and_geometry(const Field& section, const std::filesystem::path& folder, KernelDecl& kernel,
                              std::string& source);
// A Reference or DerivedInputs argument list: names of KernelSpecification.Arguments, none a Scratch or
// TensorMap argument, none twice. `who` names the kernel in errors ("the reference").
std::vector<std::string> read_argument_names(const Field& list, const SpaceFile& space,
                                             const std::string& who);
// DerivedInputs (derived_section.cpp), after the Reference: the section, and its agreement with the arguments
// of FillType Derived (each written by it; none without it).
void read_derived_inputs_section(const Field& root, const std::filesystem::path& folder, SpaceFile& space);

}  // namespace evotune
