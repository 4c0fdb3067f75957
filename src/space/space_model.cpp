// Compiles a space file's expressions into one variable table and evaluates them for given values.
#include "space/space_model.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "space/device_variables.hpp"
#include "space/problem_text.hpp"

namespace evotune {
namespace {

constexpr std::int64_t kUint32Max = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kCountMax = std::int64_t{1} << 53;  // doubles hold every integer up to here

std::string number_text(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

std::string scope_text(Scope scope) {
  if (scope == Scope::reference) return "the reference's launch";
  return scope == Scope::derived_inputs ? "the DerivedInputs launch" : "buffer sizes, fills and Work";
}

template <typename T>
std::optional<std::size_t> index_of(const std::vector<T>& items, const std::string& name) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return i;
  return std::nullopt;
}

}  // namespace

SpaceModel::SpaceModel(const SpaceFile& file) : file_(&file) {
  for (const auto& parameter : file.parameters) parameter_slots_.push_back(table_.add(parameter.name));
  for (const auto& size : file.sizes) size_slots_.push_back(table_.add(size.name));
  for (const auto& [name, value] : device_variables(DeviceInfo{})) device_slots_.push_back(table_.add(name));

  for (std::size_t i = 0; i < file.expressions.size(); ++i) {
    const auto& declared = file.expressions[i];
    Named named{
        compile(declared.text, "Expressions." + declared.name, Scope::variant, i), 0, false, false, {}};
    for (const auto& name : named.compiled.expression.names()) {
      const auto parameter = index_of(file.parameters, name);
      const auto earlier = index_of(file.expressions, name);
      const bool device = !parameter && !earlier && !index_of(file.sizes, name);
      named.needs_parameters |= parameter || (earlier && named_[*earlier].needs_parameters);
      named.needs_device |= device || (earlier && named_[*earlier].needs_device);
    }
    named.slot = table_.add(declared.name);
    named.parameters = parameters_read(named.compiled.expression.names());
    named_.push_back(std::move(named));
  }
  readers_.resize(file.parameters.size());
  for (std::size_t i = 0; i < named_.size(); ++i)
    for (const auto parameter : named_[i].parameters) readers_[parameter].push_back(i);
  stale_.assign(named_.size(), 0);
  const std::size_t all = named_.size();
  for (std::size_t i = 0; i < file.conditions.size(); ++i)
    conditions_.push_back(compile(file.conditions[i].expression,
                                  "ConfigurationSpace.Conditions[" + std::to_string(i) + "].Expression",
                                  Scope::variant, all));
  for (const auto& condition : conditions_)
    condition_parameters_.push_back(parameters_read(condition.expression.names()));
  for (std::size_t i = 0; i < file.launches.size(); ++i) {
    const LaunchDecl& launch = file.launches[i];
    const std::string section = file.launches_listed
                                    ? "KernelSpecification.Launches[" + std::to_string(i) + "]"
                                    : "KernelSpecification";
    CompiledLaunch compiled;
    if (!launch.condition.empty())
      compiled.condition = compile(launch.condition, section + ".If", Scope::variant, all);
    if (!launch.programmatic_condition.empty())
      compiled.programmatic_condition =
          compile(launch.programmatic_condition, section + ".ProgrammaticIf", Scope::variant, all);
    compiled.geometry = compile_geometry(launch.kernel, section, &file.kernel, Scope::variant);
    launches_.push_back(std::move(compiled));
  }
  // A Reference.Config reference is the template at that config: the variant's launch (SearchSpace).
  if (!file.reference_config)
    reference_geometry_ = compile_geometry(file.reference, "Reference", nullptr, Scope::reference);
  if (file.derived)
    derived_geometry_ = compile_geometry(*file.derived, "DerivedInputs", nullptr, Scope::derived_inputs);
  if (!file.deterministic_expression.empty())
    deterministic_ = compile(file.deterministic_expression, "Validation.Deterministic", Scope::variant, all);
  for (std::size_t i = 0; i < file.arguments.size(); ++i) {
    const auto& argument = file.arguments[i];
    const std::string path = "KernelSpecification.Arguments[" + std::to_string(i) + "].";
    sizes_.emplace_back();
    fills_.emplace_back();
    variant_values_.emplace_back();
    reference_values_.emplace_back();
    derived_values_.emplace_back();
    maps_.emplace_back();
    if (argument.is_tensor_map) {
      CompiledMap map;
      for (std::size_t d = 0; d < argument.map_dims.size(); ++d)
        map.dims.push_back(
            compile(argument.map_dims[d], path + "Dims[" + std::to_string(d) + "]", Scope::variant, all));
      for (std::size_t d = 0; d < argument.map_strides.size(); ++d)
        map.strides.push_back(compile(argument.map_strides[d], path + "Strides[" + std::to_string(d) + "]",
                                      Scope::variant, all));
      for (std::size_t d = 0; d < argument.map_box.size(); ++d)
        map.box.push_back(
            compile(argument.map_box[d], path + "Box[" + std::to_string(d) + "]", Scope::variant, all));
      for (std::size_t c = 0; c < argument.map_buffer_if.size(); ++c)
        map.buffer_if.push_back(compile(argument.map_buffer_if[c].condition,
                                        path + "BufferIf[" + std::to_string(c) + "].If", Scope::variant,
                                        all));
      maps_.back() = std::move(map);
      continue;
    }
    if (argument.is_vector) {
      sizes_.back() = compile(argument.size_expr, path + "Size",
                              argument.is_scratch ? Scope::variant : Scope::sizes, all);
      if (argument.is_scratch || !argument.is_input) continue;
      fills_.back().push_back(compile_fill(argument.fill, path));
      for (std::size_t f = 0; f < argument.special_fills.size(); ++f)
        fills_.back().push_back(
            compile_fill(argument.special_fills[f], path + "SpecialFills[" + std::to_string(f) + "]."));
      continue;
    }
    variant_values_.back() = compile(argument.value_expr, path + "Value", Scope::variant, all);
    const auto takes = [&](const KernelDecl& kernel) {
      return std::find(kernel.arguments.begin(), kernel.arguments.end(), argument.name) !=
             kernel.arguments.end();
    };
    if (!file.reference_config && takes(file.reference))
      reference_values_.back() = compile(argument.value_expr, path + "Value", Scope::reference, all);
    if (file.derived && takes(*file.derived))
      derived_values_.back() = compile(argument.value_expr, path + "Value", Scope::derived_inputs, all);
  }
  for (std::size_t i = 0; i < file.extra_problems.size(); ++i) {
    auto& changes = extra_problems_.emplace_back();
    for (const auto& [name, text] : file.extra_problems[i])
      changes.emplace_back(name, compile(text, "Validation.ExtraProblems[" + std::to_string(i) + "]." + name,
                                         Scope::sizes, all));
  }
  flops_ = compile(file.work.flops, "Work.Flops", Scope::sizes, all);
  bytes_ = compile(file.work.bytes, "Work.Bytes", Scope::sizes, all);
}

std::vector<SpaceModel::Compiled> SpaceModel::compile_geometry(const KernelDecl& decl,
                                                               const std::string& section,
                                                               const KernelDecl* inherited, Scope scope) {
  // A launch entry's field that it leaves out is the KernelSpecification's: errors name that field.
  auto path = [&](const std::string& own, const std::string& given, const std::string& parent) {
    return (inherited && given == parent ? std::string("KernelSpecification") : section) + "." + own;
  };
  const std::size_t all = named_.size();
  const char* axes[] = {"X", "Y", "Z"};
  std::vector<Compiled> geometry;
  for (int axis = 0; axis < 3; ++axis)
    geometry.push_back(compile(decl.grid[axis],
                               path(std::string("GlobalSize.") + axes[axis], decl.grid[axis],
                                    inherited ? inherited->grid[axis] : ""),
                               scope, all));
  for (int axis = 0; axis < 3; ++axis)
    geometry.push_back(compile(decl.block[axis],
                               path(std::string("LocalSize.") + axes[axis], decl.block[axis],
                                    inherited ? inherited->block[axis] : ""),
                               scope, all));
  geometry.push_back(compile(
      decl.shared_memory, path("SharedMemory", decl.shared_memory, inherited ? inherited->shared_memory : ""),
      scope, all));
  for (int axis = 0; axis < 3; ++axis)
    geometry.push_back(compile(decl.cluster[axis],
                               path(std::string("ClusterSize.") + axes[axis], decl.cluster[axis],
                                    inherited ? inherited->cluster[axis] : ""),
                               scope, all));
  return geometry;
}

SpaceModel::Compiled SpaceModel::compile(const std::string& text, std::string path, Scope scope,
                                         std::size_t visible_named) {
  std::string problem;
  try {
    Expression expression(text);
    for (const auto& name : expression.names()) {
      problem = unavailable(name, scope, visible_named);
      if (!problem.empty()) break;
    }
    if (problem.empty()) {
      expression.bind(table_);
      return Compiled{std::move(expression), std::move(path)};
    }
  } catch (const ExpressionError& error) {
    problem = error.what();
  }
  throw SpaceError(file_->label + ": " + path + ": " + problem);
}

std::string SpaceModel::unavailable(const std::string& name, Scope scope, std::size_t visible_named) const {
  const std::string quoted = "'" + name + "'";
  if (index_of(file_->parameters, name))
    return scope == Scope::variant ? ""
                                   : quoted + " is a tuning parameter, not visible in " + scope_text(scope);
  if (index_of(file_->sizes, name)) return "";
  if (const auto named = index_of(file_->expressions, name)) {
    if (*named == visible_named) return quoted + " refers to itself";
    if (*named > visible_named)
      return quoted + " is defined later in Expressions (an expression can use only the ones before it)";
    if (scope != Scope::variant && named_[*named].needs_parameters)
      return quoted + " depends on tuning parameters, not visible in " + scope_text(scope);
    if (scope == Scope::sizes && named_[*named].needs_device)
      return quoted + " depends on device limits, not visible in " + scope_text(scope);
    return "";
  }
  if (table_.find(name))  // a device limit
    return scope == Scope::sizes ? quoted + " is a device limit, not visible in " + scope_text(scope) : "";
  return "unknown name " + quoted;
}

void SpaceModel::set_device(const DeviceInfo& device) {
  const auto values = device_variables(device);
  for (std::size_t i = 0; i < values.size(); ++i) table_.set(device_slots_[i], values[i].second);
}

void SpaceModel::set_sizes(const Sizes& sizes) {
  for (const auto& spec : file_->sizes)
    if (!spec.default_expression.empty() && !sizes.count(spec.name))
      return set_sizes(complete_sizes(file_->sizes, sizes));  // a problem from before the size was declared
  for (const auto& [name, value] : sizes)
    if (!index_of(file_->sizes, name)) throw Error(file_->label + ": unknown problem size '" + name + "'");
  for (std::size_t i = 0; i < file_->sizes.size(); ++i) {
    const auto it = sizes.find(file_->sizes[i].name);
    if (it == sizes.end())
      throw Error(file_->label + ": the problem lacks size '" + file_->sizes[i].name + "'");
    table_.set(size_slots_[i], static_cast<double>(it->second));
  }
}

void SpaceModel::set_parameter(std::size_t index, ParamValue value) {
  table_.set(parameter_slots_[index], static_cast<double>(value));
}

void SpaceModel::update(Scope scope) {
  for (const auto& named : named_) {
    if (scope != Scope::variant && named.needs_parameters) continue;
    if (scope == Scope::sizes && named.needs_device) continue;
    table_.set(named.slot, named.compiled.expression.evaluate());
  }
}

void SpaceModel::update_reading(const std::vector<bool>& changed) {
  for (std::size_t parameter = 0; parameter < changed.size(); ++parameter)
    if (changed[parameter])
      for (const auto i : readers_[parameter]) stale_[i] = 1;
  for (std::size_t i = 0; i < named_.size(); ++i)  // in file order: a later one may read an earlier one
    if (stale_[i]) {
      stale_[i] = 0;
      table_.set(named_[i].slot, named_[i].compiled.expression.evaluate());
    }
}

std::set<std::size_t> SpaceModel::parameters_read(const std::vector<std::string>& names) const {
  std::set<std::size_t> read;
  for (const auto& name : names) {
    if (const auto parameter = index_of(file_->parameters, name)) read.insert(*parameter);
    if (const auto named = index_of(file_->expressions, name); named && *named < named_.size())
      read.insert(named_[*named].parameters.begin(), named_[*named].parameters.end());
  }
  return read;
}

bool SpaceModel::condition_holds(std::size_t index) const {
  const double value = conditions_[index].expression.evaluate();
  return value != 0 && !std::isnan(value);
}

std::optional<std::size_t> SpaceModel::first_failed_condition() const {
  for (std::size_t i = 0; i < conditions_.size(); ++i) {
    const double value = conditions_[i].expression.evaluate();
    if (value == 0 || std::isnan(value)) return i;
  }
  return std::nullopt;
}

bool SpaceModel::condition_undefined(std::size_t index) const {
  return std::isnan(conditions_[index].expression.evaluate());
}

std::int64_t SpaceModel::whole(const Compiled& compiled, std::int64_t max, Scope scope) const {
  const double value = compiled.expression.evaluate();
  if (value >= 0 && value <= static_cast<double>(max) && value == std::floor(value))
    return static_cast<std::int64_t>(value);
  throw SpaceError(file_->label + ": " + compiled.path + ": evaluates to " + number_text(value) +
                   ", not an integer in [0, " + std::to_string(max) + "]" + context(scope));
}

bool SpaceModel::holds(const Compiled& compiled, Scope scope) const {
  const double value = compiled.expression.evaluate();
  if (std::isnan(value))
    throw SpaceError(file_->label + ": " + compiled.path + ": cannot be evaluated (NaN)" + context(scope));
  return value != 0;
}

std::string SpaceModel::context(Scope scope) const {
  std::string text;
  for (std::size_t i = 0; i < file_->sizes.size(); ++i)
    text += (text.empty() ? "" : ",") + file_->sizes[i].name + "=" + number_text(table_.get(size_slots_[i]));
  text = " (problem " + text;
  if (scope == Scope::variant) {
    text += "; config ";
    for (std::size_t i = 0; i < file_->parameters.size(); ++i)
      text += (i ? "," : "") + file_->parameters[i].name + "=" + number_text(table_.get(parameter_slots_[i]));
  }
  return text + ")";
}

LaunchSpec SpaceModel::one_launch(const KernelDecl& decl, const std::vector<Compiled>& geometry,
                                  Scope scope) const {
  const bool variant = scope == Scope::variant;
  LaunchSpec spec;
  spec.kernel_name = decl.name;
  for (int axis = 0; axis < 3; ++axis) {
    spec.grid[axis] = static_cast<std::uint32_t>(whole(geometry[axis], kUint32Max, scope));
    spec.block[axis] = static_cast<std::uint32_t>(whole(geometry[3 + axis], kUint32Max, scope));
  }
  spec.dynamic_smem_bytes = static_cast<std::uint32_t>(whole(geometry[6], kUint32Max, scope));
  for (int axis = 0; axis < 3; ++axis)
    spec.cluster[axis] = static_cast<std::uint32_t>(whole(geometry[7 + axis], kUint32Max, scope));
  for (const auto& name : decl.arguments) {
    const std::size_t i = *index_of(file_->arguments, name);
    const auto& argument = file_->arguments[i];
    ArgSpec arg{
        argument.is_vector ? ArgSpec::Kind::buffer : ArgSpec::Kind::scalar, name, argument.dtype, 0.0, {}};
    if (argument.is_tensor_map) {
      arg.kind = ArgSpec::Kind::tensor_map;
      arg.map = tensor_map(i, scope);
    } else if (!argument.is_vector) {
      const auto& values = variant                          ? variant_values_
                           : scope == Scope::derived_inputs ? derived_values_
                                                            : reference_values_;
      const Compiled& value = *values[i];
      arg.value = value.expression.evaluate();
      const bool integral = !is_floating(argument.dtype);
      if (!std::isfinite(arg.value) || (integral && arg.value != std::floor(arg.value)))
        throw SpaceError(file_->label + ": " + value.path + ": evaluates to " + number_text(arg.value) +
                         (integral ? ", not an integer" : ", not a finite number") + context(scope));
    }
    spec.args.push_back(std::move(arg));
  }
  return spec;
}

TensorMapSpec SpaceModel::tensor_map(std::size_t i, Scope scope) const {
  const auto& argument = file_->arguments[i];
  const CompiledMap& compiled = *maps_[i];
  TensorMapSpec map;
  map.buffer = argument.map_buffer;
  for (std::size_t c = 0; c < compiled.buffer_if.size(); ++c) {
    if (holds(compiled.buffer_if[c], scope)) {
      map.buffer = argument.map_buffer_if[c].buffer;
      break;
    }
  }
  map.swizzle_bytes = argument.map_swizzle_bytes;
  for (const auto& dim : compiled.dims) map.dims.push_back(whole(dim, kCountMax, scope));
  for (const auto& box : compiled.box) map.box.push_back(whole(box, kCountMax, scope));
  const auto element = static_cast<std::int64_t>(size_of(argument.dtype));
  if (compiled.strides.empty()) {
    std::int64_t stride = element;
    for (std::size_t d = 0; d + 1 < map.dims.size(); ++d) map.strides.push_back(stride *= map.dims[d]);
  } else {
    for (const auto& stride : compiled.strides) map.strides.push_back(whole(stride, kCountMax, scope));
  }
  // The map's last element must lie inside its buffer (the reads of a box past the dims are the hardware's
  // zeros, never memory).
  std::int64_t last = element;
  for (std::size_t d = 0; d < map.dims.size(); ++d)
    last += (map.dims[d] - 1) * (d == 0 ? element : map.strides[d - 1]);
  const std::size_t buffer = *index_of(file_->arguments, map.buffer);
  const std::int64_t bytes = whole(*sizes_[buffer], kCountMax, scope) * element;
  if (map.dims.empty() ||
      std::any_of(map.dims.begin(), map.dims.end(), [](std::int64_t d) { return d < 1; }) || last > bytes)
    throw SpaceError(file_->label + ": KernelSpecification.Arguments[" + std::to_string(i) +
                     "] (tensor map '" + argument.name + "'): its dims reach byte " + std::to_string(last) +
                     " of '" + map.buffer + "', which has " + std::to_string(bytes) + context(scope));
  return map;
}

bool SpaceModel::deterministic() const {
  if (!deterministic_) return file_->tolerances.deterministic;
  return holds(*deterministic_, Scope::variant);
}

LaunchSpec SpaceModel::launch(Scope scope) const {
  if (scope == Scope::derived_inputs) return one_launch(*file_->derived, derived_geometry_, scope);
  if (scope != Scope::variant) return one_launch(file_->reference, reference_geometry_, scope);
  std::vector<LaunchSpec> steps;
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    if (const auto& condition = launches_[i].condition; condition && !holds(*condition, scope)) continue;
    steps.push_back(one_launch(file_->launches[i].kernel, launches_[i].geometry, scope));
    // The first launch that applies has no launch of the variant before it (only a zeroed scratch's memset,
    // or the caller's work): an ordinary launch, or with "Programmatic": "always" a dependent of the caller's
    // kernel before the call.
    const LaunchDecl& declared = file_->launches[i];
    const auto& condition = launches_[i].programmatic_condition;
    steps.back().programmatic = declared.programmatic && (steps.size() > 1 || declared.programmatic_first) &&
                                (!condition || holds(*condition, scope));
  }
  if (steps.empty())
    throw SpaceError(file_->label + ": KernelSpecification.Launches: no launch applies (every If is 0)" +
                     context(scope));
  LaunchSpec first = std::move(steps.front());
  first.then.assign(std::make_move_iterator(steps.begin() + 1), std::make_move_iterator(steps.end()));
  for (std::size_t i = 0; i < file_->arguments.size(); ++i) {
    const auto& argument = file_->arguments[i];
    if (!argument.is_scratch) continue;
    const auto steps_of = launch_steps(first);
    const bool named = std::any_of(steps_of.begin(), steps_of.end(), [&](const LaunchSpec* step) {
      return std::any_of(step->args.begin(), step->args.end(), [&](const ArgSpec& arg) {
        return arg.name == argument.name ||
               (arg.kind == ArgSpec::Kind::tensor_map && arg.map.buffer == argument.name);
      });
    });
    if (named)
      first.scratch.push_back(
          {argument.name, argument.dtype, whole(*sizes_[i], kCountMax, scope), argument.scratch_zeroed});
  }
  return first;
}

SpaceModel::CompiledFill SpaceModel::compile_fill(const FillDecl& fill, const std::string& path) {
  CompiledFill compiled{fill.kind, {}, {}, {}};
  const std::size_t all = named_.size();
  if (fill.kind == FillSpec::Kind::constant) {
    compiled.value = compile(fill.value, path + "FillValue", Scope::sizes, all);
  } else if (fill.kind == FillSpec::Kind::random_uniform) {
    compiled.low = compile(fill.low, path + "FillRange[0]", Scope::sizes, all);
    compiled.high = compile(fill.high, path + "FillRange[1]", Scope::sizes, all);
  }
  return compiled;
}

FillSpec SpaceModel::fill(const CompiledFill& compiled) const {
  const auto finite = [&](const Compiled& bound) {
    const double value = bound.expression.evaluate();
    if (!std::isfinite(value))
      throw SpaceError(file_->label + ": " + bound.path + ": evaluates to " + number_text(value) +
                       ", not a finite number" + context(Scope::sizes));
    return value;
  };
  FillSpec spec;
  spec.kind = compiled.kind;
  if (compiled.value) spec.value = finite(*compiled.value);
  if (compiled.low) {
    spec.low = finite(*compiled.low);
    spec.high = finite(*compiled.high);
    if (spec.low > spec.high)
      throw SpaceError(file_->label + ": " + compiled.low->path + ": low " + number_text(spec.low) +
                       " is above high " + number_text(spec.high) + context(Scope::sizes));
  }
  return spec;
}

std::vector<BufferSpec> SpaceModel::buffers() const {
  std::vector<BufferSpec> result;
  for (std::size_t i = 0; i < file_->arguments.size(); ++i) {
    const auto& argument = file_->arguments[i];
    if (!argument.is_vector || argument.is_scratch) continue;
    BufferSpec buffer{argument.name,
                      argument.dtype,
                      whole(*sizes_[i], kCountMax, Scope::sizes),
                      argument.is_input,
                      argument.is_output,
                      {},
                      {},
                      argument.constant_symbol};
    if (!fills_[i].empty()) {
      buffer.fill = fill(fills_[i].front());
      for (std::size_t f = 1; f < fills_[i].size(); ++f) buffer.special_fills.push_back(fill(fills_[i][f]));
    }
    result.push_back(std::move(buffer));
  }
  return result;
}

double SpaceModel::amount(const Compiled& compiled) const {
  const double value = compiled.expression.evaluate();
  if (std::isfinite(value) && value >= 0) return value;
  throw SpaceError(file_->label + ": " + compiled.path + ": evaluates to " + number_text(value) +
                   ", not a non-negative number" + context(Scope::sizes));
}

double SpaceModel::flops() const { return amount(*flops_); }

std::vector<Sizes> SpaceModel::extra_problems(const Sizes& sizes) const {
  std::vector<Sizes> problems;
  for (const auto& changes : extra_problems_) {
    Sizes& problem = problems.emplace_back(sizes);
    for (const auto& [name, compiled] : changes) {
      problem[name] = whole(compiled, kCountMax, Scope::sizes);
      if (problem[name] < 1)
        throw SpaceError(file_->label + ": " + compiled.path + ": evaluates to " +
                         std::to_string(problem[name]) + ", not a positive size" + context(Scope::sizes));
    }
  }
  return problems;
}
double SpaceModel::bytes() const { return amount(*bytes_); }

}  // namespace evotune
