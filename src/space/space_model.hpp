// The compiled expressions of a space file and the variable values they read: set the values, then evaluate
// conditions, launch geometry, arguments, buffer sizes and work. Not thread-safe (SearchSpace serialises it).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/launch_spec.hpp"
#include "space/expression.hpp"
#include "space/space_file.hpp"

namespace evotune {

// What an expression may read. variant: everything; reference: sizes, device limits and the named
// expressions that need no tuning parameter; derived_inputs: the same, for the DerivedInputs kernel; sizes:
// sizes and the named expressions that need neither.
enum class Scope { variant, reference, derived_inputs, sizes };

class SpaceModel {
 public:
  // Compiles every expression of the file, checking each name against its scope. Throws SpaceError
  // "FILE: Field.Path: unknown name 'X'" and the like. `file` must outlive the model.
  explicit SpaceModel(const SpaceFile& file);
  SpaceModel(const SpaceModel&) = delete;
  SpaceModel& operator=(const SpaceModel&) = delete;

  void set_device(const DeviceInfo& device);
  // Throws Error when a declared size is missing or an undeclared one is given.
  void set_sizes(const Sizes& sizes);
  void set_parameter(std::size_t index, ParamValue value);  // index in file order

  // Evaluates the named expressions the scope sees, in file order. Call after changing values.
  void update(Scope scope);
  // The same as update(Scope::variant) after changing only the tuning parameters marked in `changed` (file
  // order) since the last update: re-evaluates only the named expressions that read one of them.
  void update_reading(const std::vector<bool>& changed);
  // The first condition that rejects the current values (zero or NaN), after update(Scope::variant).
  std::optional<std::size_t> first_failed_condition() const;
  bool condition_undefined(std::size_t index) const;  // evaluates to NaN
  bool condition_holds(std::size_t index) const;      // non-zero and not NaN, after update(Scope::variant)
  // The tuning parameters (indices in file order) a condition reads, through named expressions too.
  const std::set<std::size_t>& condition_parameters(std::size_t index) const {
    return condition_parameters_[index];
  }

  // variant: the template's launch (after update(Scope::variant)); reference: the reference's launch (after
  // update(Scope::reference)); derived_inputs: the DerivedInputs kernel's (after
  // update(Scope::derived_inputs); the file must have one). Throws SpaceError naming the field when a value
  // is not a valid integer.
  LaunchSpec launch(Scope scope) const;
  // Validation.Deterministic for the current values (after update(Scope::variant)): its expression's value is
  // non-zero, or the file's true or false. Throws SpaceError when the expression is NaN.
  bool deterministic() const;
  // After update(Scope::sizes).
  std::vector<BufferSpec> buffers() const;
  double flops() const;
  double bytes() const;
  // After update(Scope::sizes): each Validation.ExtraProblems entry applied to `sizes` (the sizes set).
  std::vector<Sizes> extra_problems(const Sizes& sizes) const;

 private:
  struct Compiled {
    Expression expression;
    std::string path;
  };
  struct Named {
    Compiled compiled;
    std::size_t slot = 0;
    bool needs_parameters = false;
    bool needs_device = false;
    std::set<std::size_t> parameters;  // the tuning parameters it reads, directly or through earlier ones
  };
  std::set<std::size_t> parameters_read(const std::vector<std::string>& names) const;
  std::vector<std::set<std::size_t>> condition_parameters_;
  std::vector<std::vector<std::size_t>> readers_;  // per tuning parameter: the named expressions reading it
  std::vector<char> stale_;                        // update_reading's marks, one a named expression

  Compiled compile(const std::string& text, std::string path, Scope scope, std::size_t visible_named);
  std::string unavailable(const std::string& name, Scope scope, std::size_t visible_named) const;
  std::int64_t whole(const Compiled& compiled, std::int64_t max, Scope scope) const;
  double amount(const Compiled& compiled) const;
  // A condition (a launch's If or ProgrammaticIf, a map's BufferIf, Deterministic): non-zero; NaN is an
  // error.
  bool holds(const Compiled& compiled, Scope scope) const;
  std::string context(Scope scope) const;
  // One kernel's launch from its declaration and compiled geometry (grid, block, shared memory).
  LaunchSpec one_launch(const KernelDecl& decl, const std::vector<Compiled>& geometry, Scope scope) const;
  TensorMapSpec tensor_map(std::size_t argument, Scope scope) const;
  std::vector<Compiled> compile_geometry(const KernelDecl& decl, const std::string& section,
                                         const KernelDecl* inherited, Scope scope);

  const SpaceFile* file_;
  VariableTable table_;
  std::vector<std::size_t> parameter_slots_;
  std::vector<std::size_t> size_slots_;
  std::vector<std::size_t> device_slots_;
  std::vector<Named> named_;
  std::vector<Compiled> conditions_;
  struct CompiledLaunch {
    std::optional<Compiled> condition;               // If
    std::optional<Compiled> programmatic_condition;  // ProgrammaticIf
    std::vector<Compiled> geometry;                  // grid X Y Z, block X Y Z, shared memory, cluster X Y Z
  };
  std::vector<CompiledLaunch> launches_;  // per file.launches
  std::vector<Compiled> reference_geometry_;
  std::vector<Compiled> derived_geometry_;                 // DerivedInputs, where the file has it
  std::vector<std::optional<Compiled>> sizes_;             // per argument: Vector (or Scratch) Size
  std::vector<std::optional<Compiled>> variant_values_;    // per argument: Scalar Value for the template
  std::vector<std::optional<Compiled>> reference_values_;  // ... for the reference, when it takes it
  std::vector<std::optional<Compiled>> derived_values_;  // ... for the DerivedInputs kernel, when it takes it
  std::optional<Compiled> deterministic_;                // Validation.Deterministic as an expression
  struct CompiledMap {
    std::vector<Compiled> dims, strides, box;
    std::vector<Compiled> buffer_if;  // BufferIf's conditions, in order
  };
  std::vector<std::optional<CompiledMap>> maps_;  // per argument: TensorMap
  struct CompiledFill {
    FillSpec::Kind kind = FillSpec::Kind::random_uniform;
    std::optional<Compiled> low, high, value;  // random_uniform: low, high; constant: value
  };
  CompiledFill compile_fill(const FillDecl& fill, const std::string& path);
  FillSpec fill(const CompiledFill& fill) const;
  std::vector<std::vector<CompiledFill>> fills_;  // per argument: Vector input: its fill, then SpecialFills
  std::optional<Compiled> flops_;
  std::vector<std::vector<std::pair<std::string, Compiled>>> extra_problems_;
  std::optional<Compiled> bytes_;
};

}  // namespace evotune
