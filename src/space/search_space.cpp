// SearchSpace: the loaded file plus its compiled model; the methods set values on the model and read results.
#include "space/search_space.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "gen/local_includes.hpp"
#include "space/config_walk.hpp"
#include "space/problem_text.hpp"
#include "space/shape_transfer.hpp"
#include "space/space_file.hpp"
#include "space/space_model.hpp"

namespace evotune {
namespace {

// Steps an odometer over the parameters' value indices, the last parameter fastest, and updates the model's
// values for the digits that changed. False once every combination was visited.
bool advance(const std::vector<TuningParameter>& parameters, std::vector<std::size_t>& digits,
             SpaceModel& model) {
  for (std::size_t p = parameters.size(); p-- > 0;) {
    const bool carry = ++digits[p] == parameters[p].values.size();
    if (carry) digits[p] = 0;
    model.set_parameter(p, parameters[p].values[digits[p]]);
    if (!carry) return true;
  }
  return false;
}

}  // namespace

struct SearchSpace::Impl {
  explicit Impl(SpaceFile read) : file(std::move(read)), model(file) {
    const std::string separator(1, '\0');
    // With the template's own headers inlined (as every variant is compiled): a changed header is a new
    // version.
    const std::string kernel = LocalIncludes(file.kernel.file.parent_path()).expand(file.template_source, "");
    const std::string reference =
        LocalIncludes(file.reference.file.parent_path()).expand(file.reference_source, "");
    std::string identity = file.json_text + separator + kernel + separator + reference;
    // Only where there is one, so that every space without it keeps its hash.
    if (file.derived)
      identity += separator + LocalIncludes(file.derived->file.parent_path()).expand(file.derived_source, "");
    hash = hex_hash(identity);
    for (const Seed& seed : file.seeds) seed_configs.push_back(seed.config);
  }

  // Puts the config's values into the model, in file order. Call with the mutex held.
  void set_config(const Config& config) {
    for (std::size_t i = 0; i < file.parameters.size(); ++i)
      model.set_parameter(i, config.at(file.parameters[i].name));
  }

  // A walk of the configs valid at `sizes` on `device` (the model set to both). Call with the mutex held.
  ConfigWalk walk_at(const Sizes& sizes, const DeviceInfo& device) {
    model.set_device(device);
    model.set_sizes(sizes);
    return ConfigWalk(file.parameters, file.conditions.size(), !file.expressions.empty(), model);
  }

  SpaceFile file;
  SpaceModel model;  // evaluation rebinds values, so every use holds the mutex
  std::string hash;
  std::vector<Config> seed_configs;  // file.seeds' configs
  std::mutex mutex;
};

SearchSpace::SearchSpace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SearchSpace::SearchSpace(SearchSpace&&) noexcept = default;
SearchSpace& SearchSpace::operator=(SearchSpace&&) noexcept = default;
SearchSpace::~SearchSpace() = default;

SearchSpace SearchSpace::load(const std::filesystem::path& file) {
  SpaceFile read = read_space_file(file);
  if (!read.t1_ignored.empty()) {
    std::string fields;
    for (const auto& field : read.t1_ignored) fields += (fields.empty() ? "" : ", ") + field;
    spdlog::warn("{}: T1 fields accepted without effect on what is measured: {}", read.label, fields);
  }
  return SearchSpace(std::make_unique<Impl>(std::move(read)));
}

const std::string& SearchSpace::name() const { return impl_->file.name; }
const std::filesystem::path& SearchSpace::path() const { return impl_->file.path; }
const std::string& SearchSpace::hash() const { return impl_->hash; }
const std::string& SearchSpace::json_text() const { return impl_->file.json_text; }
const std::vector<TuningParameter>& SearchSpace::parameters() const { return impl_->file.parameters; }
const std::vector<Condition>& SearchSpace::conditions() const { return impl_->file.conditions; }
const std::vector<SizeSpec>& SearchSpace::sizes() const { return impl_->file.sizes; }
const std::vector<NamedExpression>& SearchSpace::expressions() const { return impl_->file.expressions; }
const std::vector<ArgumentDecl>& SearchSpace::arguments() const { return impl_->file.arguments; }
const KernelDecl& SearchSpace::kernel() const { return impl_->file.kernel; }
const std::vector<LaunchDecl>& SearchSpace::launches() const { return impl_->file.launches; }
const KernelDecl& SearchSpace::reference() const { return impl_->file.reference; }
const std::vector<std::string>& SearchSpace::compiler_options() const { return impl_->file.compiler_options; }
const std::string& SearchSpace::arch_suffix() const { return impl_->file.arch_suffix; }
const Tolerances& SearchSpace::tolerances() const { return impl_->file.tolerances; }
const std::string& SearchSpace::template_source() const { return impl_->file.template_source; }
const std::string& SearchSpace::reference_source() const { return impl_->file.reference_source; }
std::optional<std::int64_t> SearchSpace::default_budget() const { return impl_->file.budget; }
const KernelDecl* SearchSpace::derived_inputs() const {
  return impl_->file.derived ? &*impl_->file.derived : nullptr;
}
const std::string& SearchSpace::derived_inputs_source() const { return impl_->file.derived_source; }
std::map<std::string, std::int64_t> SearchSpace::derived_inputs_constants(const Sizes& sizes) const {
  return size_constants(sizes);
}

const std::vector<Config>& SearchSpace::seeds() const { return impl_->seed_configs; }

std::vector<Config> SearchSpace::seeds_for(const Sizes& problem) const {
  const auto& seeds = impl_->file.seeds;
  std::vector<double> distance;
  for (const Seed& seed : seeds) distance.push_back(problem_distance(seed.problem, problem));
  std::vector<std::size_t> order(seeds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return distance[a] < distance[b]; });
  std::vector<Config> configs;
  for (const std::size_t i : order) configs.push_back(seeds[i].config);
  return configs;
}

std::optional<GemmBaselineSpec> SearchSpace::baseline(const Sizes& sizes) const {
  const SpaceFile& file = impl_->file;
  if (file.baseline.empty()) return std::nullopt;
  const auto size = [&](const char* name) {
    const auto found = sizes.find(name);
    return found == sizes.end() ? 0 : found->second;
  };
  if (size("BIAS") != 0 || size("ACT") != 0) return std::nullopt;
  GemmBaselineSpec spec;
  spec.library = file.baseline;
  spec.m = size("M");
  spec.n = size("N");
  spec.k = size("K");
  spec.b_kmajor = size("B_KMAJOR") != 0;
  for (const auto& argument : file.arguments) {
    if (argument.name == spec.a) spec.input = argument.dtype;
    if (argument.name == spec.d) spec.output = argument.dtype;
  }
  return spec;
}

Sizes SearchSpace::resolve_problem(const std::string& overrides) const {
  return resolve_sizes(impl_->file.sizes, overrides);
}

Sizes SearchSpace::complete_problem(const Sizes& sizes) const {
  return complete_sizes(impl_->file.sizes, sizes);
}

std::uint64_t SearchSpace::total_configs() const {
  std::uint64_t total = 1;
  for (const auto& parameter : impl_->file.parameters) {
    const std::uint64_t count = parameter.values.size();
    if (total > std::numeric_limits<std::uint64_t>::max() / count)
      return std::numeric_limits<std::uint64_t>::max();
    total *= count;
  }
  return total;
}

void SearchSpace::require_known(const Config& config) const {
  const auto& parameters = impl_->file.parameters;
  for (const auto& [name, value] : config) {
    const auto it = std::find_if(parameters.begin(), parameters.end(),
                                 [&](const TuningParameter& parameter) { return parameter.name == name; });
    if (it == parameters.end())
      throw Error("config " + canonical_json(config) + ": unknown parameter '" + name + "'");
    if (std::find(it->values.begin(), it->values.end(), value) == it->values.end())
      throw Error("config " + canonical_json(config) + ": " + name + "=" + std::to_string(value) +
                  " is not one of its values");
  }
  for (const auto& parameter : parameters)
    if (!config.count(parameter.name))
      throw Error("config " + canonical_json(config) + ": parameter '" + parameter.name + "' is missing");
}

ConstraintCheck SearchSpace::check(const Config& config, const Sizes& sizes, const DeviceInfo& device) const {
  require_known(config);
  std::lock_guard lock(impl_->mutex);
  auto& model = impl_->model;
  model.set_device(device);
  model.set_sizes(sizes);
  impl_->set_config(config);
  model.update(Scope::variant);
  const auto failed = model.first_failed_condition();
  if (!failed) return {};
  const auto& condition = impl_->file.conditions[*failed];
  std::string reason = condition.reason;
  if (model.condition_undefined(*failed))
    reason = "cannot be evaluated (an integer operation got a non-integer or a zero divisor)" +
             (reason.empty() ? "" : "; " + reason);
  return {false, condition.name, reason};
}

std::vector<Config> SearchSpace::enumerate(const Sizes& sizes, const DeviceInfo& device) const {
  std::lock_guard lock(impl_->mutex);
  const auto& parameters = impl_->file.parameters;
  const auto& conditions = impl_->file.conditions;
  auto& model = impl_->model;
  // Too many candidates to test one by one: the walk, dead branches cut, then the candidates' order (file
  // order, the last parameter fastest). A space without valid configs takes the loop below for its error.
  if (total_configs() > kEnumerableCandidates) {
    std::vector<Config> valid = impl_->walk_at(sizes, device).every_valid(true);
    if (!valid.empty()) return valid;
  }
  model.set_device(device);
  model.set_sizes(sizes);
  std::vector<std::size_t> digits(parameters.size(), 0);
  for (std::size_t i = 0; i < parameters.size(); ++i) model.set_parameter(i, parameters[i].values[0]);
  std::vector<std::uint64_t> rejected(conditions.size(), 0);
  std::vector<Config> valid;
  do {
    model.update(Scope::variant);
    if (const auto failed = model.first_failed_condition()) {
      ++rejected[*failed];
      continue;
    }
    Config config;
    for (std::size_t i = 0; i < parameters.size(); ++i)
      config[parameters[i].name] = parameters[i].values[digits[i]];
    valid.push_back(std::move(config));
  } while (advance(parameters, digits, model));
  if (!valid.empty()) return valid;
  const auto worst = std::max_element(rejected.begin(), rejected.end()) - rejected.begin();
  const auto& condition = conditions[worst];
  throw SpaceError(impl_->file.label + ": no configuration satisfies the conditions for problem " +
                   key_value_text(sizes) + " on device " + device.name + " (" + device.arch() +
                   "); condition '" + condition.name + "' rejected the most (" +
                   std::to_string(rejected[worst]) + " of " + std::to_string(total_configs()) + ")" +
                   (condition.reason.empty() ? "" : ": " + condition.reason));
}

std::uint64_t SearchSpace::count_valid(const Sizes& sizes, const DeviceInfo& device) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->walk_at(sizes, device).count();
}

std::vector<Config> SearchSpace::sample_valid(std::size_t count, std::uint64_t seed, const Sizes& sizes,
                                              const DeviceInfo& device, bool extremes,
                                              std::uint64_t* valid_count) const {
  std::lock_guard lock(impl_->mutex);
  const auto& file = impl_->file;
  ConfigWalk walk = impl_->walk_at(sizes, device);
  std::mt19937_64 rng(seed);
  std::set<Config> seen;
  std::vector<Config> drawn;
  for (std::size_t p = 0; extremes && p < file.parameters.size(); ++p)
    for (const std::size_t value : {std::size_t{0}, file.parameters[p].values.size() - 1})
      if (auto config = walk.draw(rng, 100'000, std::pair{p, value}); config && seen.insert(*config).second)
        drawn.push_back(std::move(*config));
  // Drawing whole configs instead, until `count` distinct ones came, repeats ever more often as `count`
  // nears the number of valid ones (50,000 of the GEMM space's 57,430 at 256 x 256 x 512 took 18 s).
  // The extremes count towards `count`: as many more positions are drawn as they may repeat.
  const std::size_t wanted = count > drawn.size() ? count - drawn.size() : 0;
  const std::uint64_t valid = walk.count(), draws = std::min<std::uint64_t>(valid, wanted + drawn.size());
  if (valid_count) *valid_count = valid;
  std::vector<std::uint64_t> ranks;
  if (draws == valid) {
    ranks.resize(valid);
    std::iota(ranks.begin(), ranks.end(), std::uint64_t{0});
  } else if (wanted > 0) {  // Floyd's: `draws` distinct positions, each subset equally likely
    std::set<std::uint64_t> chosen;
    for (std::uint64_t j = valid - draws; j < valid; ++j)
      if (!chosen.insert(std::uniform_int_distribution<std::uint64_t>(0, j)(rng)).second) chosen.insert(j);
    ranks.assign(chosen.begin(), chosen.end());
  }
  std::vector<Config> picked;
  for (Config& config : walk.at_ranks(ranks))
    if (!seen.count(config)) picked.push_back(std::move(config));
  if (picked.size() > wanted) {  // a random `wanted` of them, in the walk's order
    std::vector<std::size_t> keep(picked.size());
    std::iota(keep.begin(), keep.end(), std::size_t{0});
    std::shuffle(keep.begin(), keep.end(), rng);
    keep.resize(wanted);
    std::sort(keep.begin(), keep.end());
    for (const std::size_t i : keep) drawn.push_back(std::move(picked[i]));
  } else {
    for (Config& config : picked) drawn.push_back(std::move(config));
  }
  return drawn;
}

std::vector<Config> SearchSpace::search_candidates(const Sizes& sizes, const DeviceInfo& device,
                                                   std::uint64_t seed, std::size_t sample,
                                                   std::uint64_t* valid_count) const {
  if (total_configs() <= kEnumerableCandidates) {
    auto all = enumerate(sizes, device);
    if (valid_count) *valid_count = all.size();
    return all;
  }
  // Every valid config where `sample` or fewer are, else `sample` of them.
  auto drawn = sample_valid(sample, seed, sizes, device, false, valid_count);
  if (drawn.empty())
    throw SpaceError(impl_->file.label + ": no configuration satisfies the conditions for problem " +
                     key_value_text(sizes) + " on device " + device.name + " (0 of " +
                     std::to_string(total_configs()) + " candidates are valid)");
  // A random sample of a large space holds a few of the Seeds at best.
  add_valid(drawn, seeds_for(sizes), sizes, device);
  return drawn;
}

void SearchSpace::add_valid(std::vector<Config>& candidates, const std::vector<Config>& configs,
                            const Sizes& sizes, const DeviceInfo& device) const {
  for (const Config& config : configs)
    if (std::find(candidates.begin(), candidates.end(), config) == candidates.end() &&
        check(config, sizes, device).valid)
      candidates.push_back(config);
}

std::map<std::string, std::int64_t> SearchSpace::compile_time_constants(const Config& config,
                                                                        const Sizes& sizes) const {
  require_known(config);
  auto constants = size_constants(sizes);
  for (const auto& [name, value] : config) constants[name] = value;
  return constants;
}

std::map<std::string, std::int64_t> SearchSpace::reference_constants(const Sizes& sizes) const {
  if (impl_->file.reference_config) return compile_time_constants(*impl_->file.reference_config, sizes);
  return size_constants(sizes);
}

const std::optional<Config>& SearchSpace::reference_config() const { return impl_->file.reference_config; }

void SearchSpace::set_reference_config(const Config& config) {
  if (!impl_->file.reference_config)
    throw Error(impl_->file.label + ": the space has a reference kernel of its own, not a reference config");
  require_known(config);
  impl_->file.reference_config = config;
}

std::map<std::string, std::int64_t> SearchSpace::size_constants(const Sizes& sizes) const {
  std::map<std::string, std::int64_t> constants;
  for (const auto& size : impl_->file.sizes) {
    if (!size.compile_time) continue;
    const auto it = sizes.find(size.name);
    if (it == sizes.end()) throw Error(impl_->file.label + ": the problem lacks size '" + size.name + "'");
    constants[size.name] = it->second;
  }
  return constants;
}

LaunchSpec SearchSpace::variant_launch(const Config& config, const Sizes& sizes,
                                       const DeviceInfo& device) const {
  require_known(config);
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_device(device);
  impl_->model.set_sizes(sizes);
  impl_->set_config(config);
  impl_->model.update(Scope::variant);
  return impl_->model.launch(Scope::variant);
}

LaunchSpec SearchSpace::reference_launch(const Sizes& sizes, const DeviceInfo& device) const {
  if (impl_->file.reference_config) return variant_launch(*impl_->file.reference_config, sizes, device);
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_device(device);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::reference);
  return impl_->model.launch(Scope::reference);
}

std::optional<LaunchSpec> SearchSpace::derived_inputs_launch(const Sizes& sizes,
                                                             const DeviceInfo& device) const {
  if (!impl_->file.derived) return std::nullopt;
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_device(device);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::derived_inputs);
  return impl_->model.launch(Scope::derived_inputs);
}

bool SearchSpace::deterministic(const Config& config, const Sizes& sizes, const DeviceInfo& device) const {
  require_known(config);
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_device(device);
  impl_->model.set_sizes(sizes);
  impl_->set_config(config);
  impl_->model.update(Scope::variant);
  return impl_->model.deterministic();
}

std::vector<BufferSpec> SearchSpace::buffers(const Sizes& sizes) const {
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::sizes);
  return impl_->model.buffers();
}

std::vector<Sizes> SearchSpace::extra_problems(const Sizes& sizes) const {
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::sizes);
  return impl_->model.extra_problems(sizes);
}

double SearchSpace::flops(const Sizes& sizes) const {
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::sizes);
  return impl_->model.flops();
}

double SearchSpace::bytes(const Sizes& sizes) const {
  std::lock_guard lock(impl_->mutex);
  impl_->model.set_sizes(sizes);
  impl_->model.update(Scope::sizes);
  return impl_->model.bytes();
}

}  // namespace evotune
