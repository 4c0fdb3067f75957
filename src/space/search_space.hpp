// SearchSpace: a loaded, checked search-space file (format: docs/search-space-format.md).
// Knows parameters, constraints, problem sizes, launch geometry and buffers; evaluates its expressions
// for a (config, problem, device) and hands out concrete LaunchSpecs. Knows nothing of CUDA.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/launch_spec.hpp"
#include "space/space_decl.hpp"

namespace evotune {

class SearchSpace {
 public:
  // Reads and checks a space file. Throws SpaceError "FILE: Field.Path: what is wrong".
  static SearchSpace load(const std::filesystem::path& file);

  const std::string& name() const;
  const std::filesystem::path& path() const;
  // Stable hash (hex) of the space file, the template and the reference source: results are keyed by it.
  const std::string& hash() const;
  const std::string& json_text() const;

  const std::vector<TuningParameter>& parameters() const;
  const std::vector<Condition>& conditions() const;
  const std::vector<SizeSpec>& sizes() const;
  const std::vector<NamedExpression>& expressions() const;  // file order
  const std::vector<ArgumentDecl>& arguments() const;
  const KernelDecl& kernel() const;  // the first launch's kernel: KernelName, whose resources are recorded
  const std::vector<LaunchDecl>& launches() const;  // at least one; a space without Launches has one
  const KernelDecl& reference() const;
  const std::vector<std::string>& compiler_options() const;
  const std::string& arch_suffix() const;  // "" or "a" (sm_90a: wgmma, setmaxnreg)
  const Tolerances& tolerances() const;
  const std::string& template_source() const;
  const std::string& reference_source() const;
  std::optional<std::int64_t> default_budget() const;  // Budget ConfigurationCount

  // Defaults overridden by "B=1,H=8,S=512,D=64" (empty: all defaults). Throws Error on an unknown key,
  // a malformed item, a non-positive value or a value outside the size's allowed list.
  Sizes resolve_problem(const std::string& overrides) const;

  // Cartesian product size of the parameter values (before constraints).
  std::uint64_t total_configs() const;
  // Throws Error when the config lacks a parameter, has an unknown one or a value not in the list.
  void require_known(const Config& config) const;
  ConstraintCheck check(const Config& config, const Sizes& sizes, const DeviceInfo& device) const;
  // Every config that passes all conditions, in lexicographic order of parameter values (file order).
  std::vector<Config> enumerate(const Sizes& sizes, const DeviceInfo& device) const;

  // Parameters plus compile-time sizes: what the generator turns into #define lines.
  std::map<std::string, std::int64_t> compile_time_constants(const Config& config, const Sizes& sizes) const;
  // Compile-time sizes only: the reference kernel's #define lines.
  std::map<std::string, std::int64_t> reference_constants(const Sizes& sizes) const;

  // The launches whose If holds, in order (the first carries the others in `then`), with the scratch buffers
  // they name. Throws SpaceError when no launch applies or a value is not a valid integer.
  LaunchSpec variant_launch(const Config& config, const Sizes& sizes, const DeviceInfo& device) const;
  LaunchSpec reference_launch(const Sizes& sizes, const DeviceInfo& device) const;
  std::vector<BufferSpec> buffers(const Sizes& sizes) const;
  // The other problems every variant must also get right (Validation.ExtraProblems, e.g. S + 1: a length
  // one past a tile), each `sizes` with the sizes it changes; the variant's cubin is the same (only
  // run-time sizes change).
  std::vector<Sizes> extra_problems(const Sizes& sizes) const;
  double flops(const Sizes& sizes) const;
  double bytes(const Sizes& sizes) const;

  SearchSpace(SearchSpace&&) noexcept;
  SearchSpace& operator=(SearchSpace&&) noexcept;
  ~SearchSpace();

 private:
  struct Impl;
  explicit SearchSpace(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace evotune
