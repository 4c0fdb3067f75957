// Reads the top-level sections of a space file: configuration space, problem, expressions, validation, work,
// budget (KernelSpecification, Reference and DerivedInputs: kernel_section.cpp, derived_section.cpp). Names
// share one namespace (parameters, sizes, expressions, device limits, functions).
#include "space/space_file.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "space/device_variables.hpp"
#include "space/expression.hpp"
#include "space/problem_text.hpp"
#include "space/space_extends.hpp"
#include "space/t1_space.hpp"

namespace evotune {
namespace {

using Json = nlohmann::ordered_json;

Json parse_json(const std::string& text, const std::string& label) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    const std::size_t end = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < end; ++i) {
      column = text[i] == '\n' ? 1 : column + 1;
      if (text[i] == '\n') ++line;
    }
    std::string detail = error.what();
    const auto at = detail.find("column ");
    const auto colon = detail.find(": ", at == std::string::npos ? 0 : at);
    if (colon != std::string::npos) detail = detail.substr(colon + 2);
    throw SpaceError(label + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": malformed JSON: " + detail);
  }
}

// Every expression variable lives in one namespace; this remembers who owns each name.
class Names {
 public:
  Names() {
    for (const auto& [name, value] : device_variables(DeviceInfo{})) owners_[name] = "a device limit";
  }
  void claim(const std::string& name, const std::string& owner, const Field& where) {
    if (is_function_name(name)) where.fail("'" + name + "' is the name of a function");
    const auto [it, fresh] = owners_.emplace(name, owner);
    if (!fresh) where.fail("duplicate name '" + name + "' (already " + it->second + ")");
  }

 private:
  std::map<std::string, std::string> owners_;
};

TuningParameter read_parameter(const Field& field, Names& names) {
  allow_only(field, {"Name", "Type", "Values"});
  TuningParameter parameter;
  parameter.name = identifier(field.at("Name"));
  names.claim(parameter.name, "a tuning parameter", field.at("Name"));
  const std::string type = field.find("Type") ? field.at("Type").text() : "int";
  if (type != "int" && type != "uint" && type != "bool")
    field.at("Type").fail("unknown Type '" + type + "' (known: int, uint, bool)");
  const auto values = field.at("Values");
  parameter.values = integer_list(values);
  for (const auto value : parameter.values) {
    if (type == "uint" && value < 0)
      values.fail("negative value " + std::to_string(value) + " for Type uint");
    if (type == "bool" && value != 0 && value != 1)
      values.fail("value " + std::to_string(value) + " for Type bool (allowed: 0, 1)");
  }
  if (const auto description = field.find("Description")) parameter.description = description->text();
  return parameter;
}

Condition read_condition(const Field& field, const std::vector<TuningParameter>& parameters) {
  allow_only(field, {"Name", "Parameters", "Expression", "Reason"});
  Condition condition;
  condition.name = field.at("Name").text();
  condition.expression = expression_text(field.at("Expression"));
  if (const auto reason = field.find("Reason")) condition.reason = reason->text();
  if (const auto listed = field.find("Parameters")) {
    for (const auto& element : listed->elements()) {
      const std::string name = element.text();
      bool known = false;
      for (const auto& parameter : parameters) known = known || parameter.name == name;
      if (!known) element.fail("'" + name + "' is not a tuning parameter");
      condition.parameters.push_back(name);
    }
  }
  return condition;
}

void read_configuration_space(const Field& section, SpaceFile& space, Names& names) {
  allow_only(section, {"TuningParameters", "Conditions"});
  const auto list = section.at("TuningParameters");
  for (const auto& element : list.elements()) space.parameters.push_back(read_parameter(element, names));
  if (space.parameters.empty()) list.fail("empty list");
  if (const auto conditions = section.find("Conditions"))
    for (const auto& element : conditions->elements())
      space.conditions.push_back(read_condition(element, space.parameters));
}

SizeSpec read_size(const Field& field, Names& names, const std::vector<SizeSpec>& earlier) {
  allow_only(field, {"Name", "Default", "Values", "CompileTime"});
  SizeSpec size;
  size.name = identifier(field.at("Name"));
  names.claim(size.name, "a problem size", field.at("Name"));
  if (const auto values = field.find("Values")) size.allowed = integer_list(*values);
  if (const auto compile_time = field.find("CompileTime")) size.compile_time = compile_time->boolean();
  const auto fallback = field.at("Default");
  if (fallback.json().is_string()) {  // an expression of the sizes before it, evaluated per problem
    size.default_expression = fallback.text();
    try {
      const Expression expression(size.default_expression);
      for (const std::string& name : expression.names())
        if (std::none_of(earlier.begin(), earlier.end(), [&](const SizeSpec& s) { return s.name == name; }))
          fallback.fail("'" + name + "' is not a size declared before " + size.name);
    } catch (const ExpressionError& error) {
      fallback.fail(error.what());
    }
    return size;
  }
  size.default_value = fallback.integer();
  const auto& allowed = size.allowed;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), size.default_value) == allowed.end())
    fallback.fail("default " + std::to_string(size.default_value) + " is not in Values");
  if (allowed.empty() && size.default_value <= 0)
    fallback.fail("default " + std::to_string(size.default_value) +
                  " is not positive (list Values to allow it)");
  return size;
}

void read_validation(const Field& section, SpaceFile& space) {
  Tolerances& tolerances = space.tolerances;
  allow_only(section, {"AbsoluteTolerance", "RelativeL2Tolerance", "Deterministic", "ExtraProblems"});
  if (const auto extra = section.find("ExtraProblems"))
    for (const auto& problem : extra->elements()) {
      auto& changes = space.extra_problems.emplace_back();
      if (!problem.json().is_object())
        problem.fail("expected an object of size changes, e.g. {\"S\": \"S + 1\"}");
      for (const auto& [name, member] : problem.members()) {
        const auto size = std::find_if(space.sizes.begin(), space.sizes.end(),
                                       [&](const SizeSpec& s) { return s.name == name; });
        if (size == space.sizes.end()) member.fail("not a problem size");
        if (size->compile_time)
          member.fail("a compile-time size: every variant is compiled for one value of it");
        changes.emplace_back(name, expression_text(member));
      }
      if (changes.empty()) problem.fail("changes no size");
    }
  // true or false for every config, or an expression (space_model compiles it) deciding per config.
  if (const auto deterministic = section.find("Deterministic")) {
    if (deterministic->json().is_boolean())
      tolerances.deterministic = deterministic->boolean();
    else if (deterministic->json().is_string() || deterministic->json().is_number())
      space.deterministic_expression = expression_text(*deterministic);
    else
      deterministic->fail(
          "expected true, false or an expression over tuning parameters and problem sizes, got " +
          deterministic->describe());
  }
  for (auto [key, target] : {std::pair{"AbsoluteTolerance", &tolerances.max_abs},
                             std::pair{"RelativeL2Tolerance", &tolerances.rel_l2}}) {
    const auto field = section.find(key);
    if (!field) continue;
    *target = field->number();
    if (*target < 0) field->fail("negative tolerance");
  }
}

std::optional<std::int64_t> read_budget(const Field& section) {
  std::optional<std::int64_t> count;
  for (const auto& entry : section.elements()) {
    allow_only(entry, {"Type", "BudgetValue"});
    const std::string type = entry.at("Type").text();
    const auto value = entry.at("BudgetValue");
    if (value.number() <= 0) value.fail("budget must be positive");
    if (type == "ConfigurationCount") {
      count = value.integer();
    } else if (type != "TuningDuration" && type != "ConfigurationFraction") {
      entry.at("Type").fail("unknown budget Type '" + type +
                            "' (known: ConfigurationCount, TuningDuration, ConfigurationFraction)");
    }
  }
  return count;
}

// A seed's Problem: declared sizes, each at one of its values.
Sizes read_seed_problem(const Field& field, const std::vector<SizeSpec>& sizes) {
  Sizes problem;
  for (const auto& [name, value] : field.members()) {
    const auto size =
        std::find_if(sizes.begin(), sizes.end(), [&](const SizeSpec& s) { return s.name == name; });
    if (size == sizes.end()) value.fail("'" + name + "' is not a problem size");
    const std::int64_t number = value.integer();
    if (const auto why = size_value_error(*size, number)) value.fail(std::to_string(number) + " " + *why);
    problem[name] = number;
  }
  return problem;
}

// A seed names every tuning parameter once, each with one of its values, and may name the problem it is for
// (the sizes it omits at their defaults).
Seed read_seed(const Field& field, const std::vector<TuningParameter>& parameters,
               const std::vector<SizeSpec>& sizes) {
  Seed seed;
  for (const auto& [name, value] : field.members()) {
    if (name == "Problem") {
      seed.problem = read_seed_problem(value, sizes);
      continue;
    }
    const auto parameter = std::find_if(parameters.begin(), parameters.end(),
                                        [&](const TuningParameter& p) { return p.name == name; });
    if (parameter == parameters.end()) value.fail("'" + name + "' is not a tuning parameter");
    const std::int64_t number = value.integer();
    if (std::find(parameter->values.begin(), parameter->values.end(), number) == parameter->values.end())
      value.fail(std::to_string(number) + " is not among " + name + "'s Values");
    seed.config[name] = number;
  }
  for (const auto& parameter : parameters)
    if (!seed.config.contains(parameter.name)) field.fail("the seed does not name " + parameter.name);
  try {
    seed.problem = with_defaults(sizes, std::move(seed.problem));
  } catch (const Error& error) {
    field.fail(error.what());
  }
  return seed;
}

// Baseline "cublasLt": the space is a row-major GEMM of Vector arguments A [M, K], B ([K, N], or [N, K] with
// the compile-time size B_KMAJOR = 1) and output D [M, N], fp16 or bf16 inputs, sizes M, N and K.
void read_baseline(const Field& field, SpaceFile& space) {
  space.baseline = field.text();
  if (space.baseline != "cublasLt") field.fail("unknown baseline '" + space.baseline + "' (known: cublasLt)");
  const auto vector = [&](const std::string& name) -> const ArgumentDecl& {
    for (const auto& argument : space.arguments)
      if (argument.name == name && argument.is_vector && !argument.is_scratch) return argument;
    field.fail("the cublasLt baseline needs a Vector argument '" + name + "' (A [M, K], B, D [M, N])");
  };
  const DType input = vector("A").dtype;
  if (input != DType::f16 && input != DType::bf16)
    field.fail("the cublasLt baseline takes fp16 or bf16 A and B");
  if (vector("B").dtype != input) field.fail("the cublasLt baseline needs A and B of one type");
  const DType output = vector("D").dtype;
  if (output != input && output != DType::f32)
    field.fail("the cublasLt baseline writes D as A's type or fp32");
  if (!vector("D").is_output) field.fail("the cublasLt baseline's D must be an output");
  for (const char* size : {"M", "N", "K"}) {
    const bool found = std::any_of(space.sizes.begin(), space.sizes.end(),
                                   [&](const SizeSpec& spec) { return spec.name == size; });
    if (!found) field.fail(std::string("the cublasLt baseline needs the problem size ") + size);
  }
}

}  // namespace

std::optional<std::string> read_text_file(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

SpaceFile read_space_file(const std::filesystem::path& file) {
  SpaceFile space;
  space.path = file;
  space.label = file.string();
  const auto text = read_text_file(file);
  if (!text) throw SpaceError(space.label + ": cannot read the file");
  space.json_text = *text;
  Json json = parse_json(space.json_text, space.label);
  if (extends_another(json)) {  // read as its base's document with its own fields: the resolved one is stored
    json = resolve_extends(json, file, space.label, [](const std::filesystem::path& base) {
      const auto base_text = read_text_file(base);
      if (!base_text) throw SpaceError(base.string() + ": cannot read the file (named by Extends)");
      return parse_json(*base_text, base.string());
    });
    space.json_text = json.dump(2) + "\n";
  }
  if (is_t1_document(json)) {  // read as the space `evotune convert` writes for it
    T1Conversion conversion = convert_t1(json, space.label);
    json = std::move(conversion.space);
    space.json_text = json.dump(2) + "\n";
    space.t1_ignored = std::move(conversion.ignored);
  }
  const Field root = space_root(json, space.label);
  allow_only(root, {"General", "Name", "ConfigurationSpace", "Problem", "Expressions", "KernelSpecification",
                    "Reference", "DerivedInputs", "Validation", "Work", "Budget", "Baseline", "Seeds"});
  if (const auto general = root.find("General")) {
    if (const auto version = general->find("FormatVersion"); version && version->integer() != 1)
      version->fail("unsupported format version " + version->json().dump() + " (this evotune reads 1)");
  }
  space.name = root.at("Name").text();
  if (space.name.empty()) root.at("Name").fail("empty name");

  Names names;
  read_configuration_space(root.at("ConfigurationSpace"), space, names);
  if (const auto problem = root.find("Problem")) {
    allow_only(*problem, {"Sizes"});
    for (const auto& element : problem->at("Sizes").elements())
      space.sizes.push_back(read_size(element, names, space.sizes));
  }
  if (const auto expressions = root.find("Expressions")) {
    for (const auto& [key, field] : expressions->members()) {
      if (!is_c_identifier(key)) field.fail("'" + key + "' is not a C identifier");
      names.claim(key, "a named expression", field);
      space.expressions.push_back({key, expression_text(field)});
    }
  }
  const auto folder = file.parent_path();
  read_kernel_section(root.at("KernelSpecification"), folder, space);
  read_reference_section(root.at("Reference"), folder, space);
  read_derived_inputs_section(root, folder, space);
  if (const auto validation = root.find("Validation")) read_validation(*validation, space);
  if (const auto work = root.find("Work")) {
    allow_only(*work, {"Flops", "Bytes"});
    if (const auto flops = work->find("Flops")) space.work.flops = expression_text(*flops);
    if (const auto bytes = work->find("Bytes")) space.work.bytes = expression_text(*bytes);
  }
  if (const auto budget = root.find("Budget")) space.budget = read_budget(*budget);
  if (const auto baseline = root.find("Baseline")) read_baseline(*baseline, space);
  if (const auto seeds = root.find("Seeds"))
    for (const auto& seed : seeds->elements())
      space.seeds.push_back(read_seed(seed, space.parameters, space.sizes));
  return space;
}

}  // namespace evotune
