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

#include "core/baseline.hpp"
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
  // Stable hash (hex) of the space file, the template, the reference source and the DerivedInputs kernel's
  // source (where there is one): results are keyed by it.
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
  // DerivedInputs: the kernel that computes the inputs of FillType Derived from the others after every fill;
  // null for a space without one. Its source; its #define lines (the compile-time sizes).
  const KernelDecl* derived_inputs() const;
  const std::string& derived_inputs_source() const;
  std::map<std::string, std::int64_t> derived_inputs_constants(const Sizes& sizes) const;
  std::optional<std::int64_t> default_budget() const;  // Budget ConfigurationCount
  // The vendor library's product for these sizes (Baseline "cublasLt"): nullopt without a Baseline, or where
  // the problem adds what the library's plain product leaves out (BIAS or ACT non-zero).
  std::optional<GemmBaselineSpec> baseline(const Sizes& sizes) const;
  // Seeds: known-good configs (whether valid depends on the problem and device; strategies skip the others),
  // in file order.
  const std::vector<Config>& seeds() const;
  // The Seeds' configs in the order a search on `problem` opens with them: the seed found for the nearest
  // problem first (problem_distance), ties in file order (so file order where no seed names a Problem).
  std::vector<Config> seeds_for(const Sizes& problem) const;

  // Defaults overridden by "B=1,H=8,S=512,D=64" (empty: all defaults). Throws Error on an unknown key,
  // a malformed item, a non-positive value or a value outside the size's allowed list.
  Sizes resolve_problem(const std::string& overrides) const;
  // A problem stored or recorded before a size with an expression default was declared, with that size
  // added (its default): what the problem meant then.
  Sizes complete_problem(const Sizes& sizes) const;

  // Cartesian product size of the parameter values (before constraints).
  std::uint64_t total_configs() const;
  // Throws Error when the config lacks a parameter, has an unknown one or a value not in the list.
  void require_known(const Config& config) const;
  ConstraintCheck check(const Config& config, const Sizes& sizes, const DeviceInfo& device) const;
  // Every config that passes all conditions, in lexicographic order of parameter values (file order).
  std::vector<Config> enumerate(const Sizes& sizes, const DeviceInfo& device) const;

  // How many configs pass every condition, counted without holding them (conditions checked as soon as
  // the parameters they read are set; parameters no condition reads multiply the count).
  std::uint64_t count_valid(const Sizes& sizes, const DeviceInfo& device) const;
  // `count` distinct valid configs chosen uniformly at random (seeded), every one where fewer are valid,
  // without enumerating the candidates: positions among the valid configs drawn, then one walk (conditions
  // checked as soon as their parameters are set) picks the configs there, in the walk's order. With
  // `extremes`, first, for every parameter, a valid config holding its first and one holding its last value
  // (where random walks find one; kept even beyond `count`), as check's sample of an enumerated space has,
  // then uniform ones up to `count` in all. `valid_count`, where given, receives the number of valid configs
  // (count_valid's, from the same walk).
  std::vector<Config> sample_valid(std::size_t count, std::uint64_t seed, const Sizes& sizes,
                                   const DeviceInfo& device, bool extremes = false,
                                   std::uint64_t* valid_count = nullptr) const;
  // Spaces with more candidates than this (before conditions) are sampled, never enumerated whole.
  static constexpr std::uint64_t kEnumerableCandidates = 1'000'000;
  // How many valid configs a search of such a space starts from at most (search_candidates' `sample`).
  static constexpr std::size_t kSearchSample = 50'000;
  // The candidates a search starts from: every valid config of a space of at most kEnumerableCandidates
  // candidates or of at most `sample` valid ones, otherwise `sample` valid configs drawn with `seed` and the
  // space's Seeds valid for the problem that the draws missed (in seeds_for's order). Throws SpaceError when
  // none is valid. `valid_count`, where given, receives the number of valid configs.
  std::vector<Config> search_candidates(const Sizes& sizes, const DeviceInfo& device, std::uint64_t seed,
                                        std::size_t sample = kSearchSample,
                                        std::uint64_t* valid_count = nullptr) const;
  // Appends to `candidates` each of `configs` valid at `sizes` on `device` that it does not hold yet: a
  // strategy opens with Seeds and transferred configs only if they are among the candidates.
  void add_valid(std::vector<Config>& candidates, const std::vector<Config>& configs, const Sizes& sizes,
                 const DeviceInfo& device) const;
  // Parameters plus compile-time sizes: what the generator turns into #define lines.
  std::map<std::string, std::int64_t> compile_time_constants(const Config& config, const Sizes& sizes) const;
  // The reference kernel's #define lines: compile-time sizes, and the reference config's values when the
  // reference is the template itself (Reference.Config).
  std::map<std::string, std::int64_t> reference_constants(const Sizes& sizes) const;
  // Reference.Config, or nullopt when the space has a reference kernel of its own.
  const std::optional<Config>& reference_config() const;
  // Validates against the template at `config` instead (`--reference-config`). Throws Error when the space
  // has a reference kernel of its own or the config is not one of the space's.
  void set_reference_config(const Config& config);

  // The launches whose If holds, in order (the first carries the others in `then`), with the scratch buffers
  // they name. Throws SpaceError when no launch applies or a value is not a valid integer.
  LaunchSpec variant_launch(const Config& config, const Sizes& sizes, const DeviceInfo& device) const;
  LaunchSpec reference_launch(const Sizes& sizes, const DeviceInfo& device) const;
  // The DerivedInputs kernel's launch; nullopt for a space without one.
  std::optional<LaunchSpec> derived_inputs_launch(const Sizes& sizes, const DeviceInfo& device) const;
  // Whether `config`'s outputs must be bit-identical over two launches on the same inputs (the bitwise
  // repeat, else nondeterministic): Validation.Deterministic, an expression evaluated for the config or a
  // bool.
  bool deterministic(const Config& config, const Sizes& sizes, const DeviceInfo& device) const;
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
  std::map<std::string, std::int64_t> size_constants(const Sizes& sizes) const;  // compile-time sizes
  struct Impl;
  explicit SearchSpace(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace evotune
