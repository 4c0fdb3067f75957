// T1 -> evotune space document. Python expressions are parsed here (python_expr): Values are evaluated to
// integer lists, conditions and geometry translated into evotune's expression language. The reference is the
// same kernel at the parameters' Default values (T1 files carry no reference kernel).
#include "space/t1_space.hpp"

#include <cmath>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "space/field.hpp"
#include "space/python_expr.hpp"

namespace evotune {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kNoDerivedInputs =
    "derived inputs (FillType Derived, DerivedInputs) are not supported in a T1 file: write the space in "
    "evotune's format (evotune convert gives a start) and add a DerivedInputs section there";

// What the conversion carries from section to section.
struct Context {
  std::set<std::string> names;  // tuning parameters and BenchmarkConfig entries
  PyNames config;               // BenchmarkConfig values (Values and Size may use them)
  std::vector<std::string>* ignored = nullptr;
};

PyNode parse_at(const Field& field, const std::string& text) {
  try {
    return parse_python(text);
  } catch (const PythonError& error) {
    field.fail("Python expression '" + text + "': " + error.what());
  }
}

// A number-valued field: a JSON number, or a Python expression string.
std::string native_expression(const Field& field, const Context& context) {
  if (field.json().is_number()) return field.json().dump();
  const std::string text = field.text();
  const PyNode node = parse_at(field, text);
  try {
    return python_to_native(node, context.names);
  } catch (const PythonError& error) {
    field.fail("Python expression '" + text + "': " + error.what());
  }
}

void ignore(const Field& field, Context& context, const std::string& why = "") {
  context.ignored->push_back(field.path() + (why.empty() ? "" : " (" + why + ")"));
}

void read_benchmark_config(const Field& section, Json& space, Context& context) {
  Json sizes = Json::array();
  for (const auto& [name, value] : section.members()) {
    if (!value.json().is_number_integer())
      value.fail("a BenchmarkConfig value must be an integer (it becomes a problem size)");
    const std::int64_t number = value.integer();
    Json size = {{"Name", name}, {"Default", number}};
    if (number <= 0) size["Values"] = Json::array({number});
    sizes.push_back(size);
    context.names.insert(name);
    context.config[name] = PyValue{number};
  }
  if (!sizes.empty()) space["Problem"] = {{"Sizes", sizes}};
}

Json read_parameter(const Field& field, Context& context, Json& defaults) {
  allow_only(field, {"Name", "Type", "Values", "Default"});
  const std::string name = identifier(field.at("Name"));
  const std::string type = field.find("Type") ? field.at("Type").text() : "int";
  if (type != "int" && type != "uint" && type != "bool")
    field.at("Type").fail("Type '" + type +
                          "' is not supported (evotune tunes int, uint and bool parameters)");
  const auto values_field = field.at("Values");
  Json values = Json::array();
  if (values_field.json().is_string()) {
    const std::string text = values_field.text();
    PyValue value;
    try {
      value = evaluate_python(parse_at(values_field, text), context.config);
    } catch (const PythonError& error) {
      values_field.fail("Python expression '" + text + "': " + error.what());
    }
    if (!value.is_list()) values_field.fail("'" + text + "' is not a list");
    for (const auto& element : value.list()) {
      if (element.is_list() || std::floor(element.real()) != element.real())
        values_field.fail("'" + text + "' holds " + element.describe() + ", not an integer");
      values.push_back(static_cast<std::int64_t>(element.real()));
    }
  } else {
    values = values_field.json();
  }
  Json parameter = {{"Name", name}, {"Type", type}, {"Values", values}};
  if (const auto fallback = field.find("Default")) {
    bool listed = false;
    for (const auto& value : values) listed = listed || value == fallback->json();
    if (!listed) fallback->fail("default " + fallback->json().dump() + " is not among the Values");
    defaults[name] = fallback->json();
  } else if (!values.empty()) {
    defaults[name] = values.front();
  }
  context.names.insert(name);
  return parameter;
}

Json read_configuration_space(const Field& section, Context& context, Json& defaults) {
  allow_only(section, {"TuningParameters", "Conditions"});
  Json parameters = Json::array();
  for (const auto& element : section.at("TuningParameters").elements())
    parameters.push_back(read_parameter(element, context, defaults));
  Json conditions = Json::array();
  if (const auto list = section.find("Conditions")) {
    for (const auto& element : list->elements()) {
      allow_only(element, {"Expression", "Parameters"});
      const auto expression = element.at("Expression");
      Json condition = {{"Name", "T1 condition " + std::to_string(conditions.size() + 1)},
                        {"Expression", native_expression(expression, context)},
                        {"Reason", "the T1 file requires " + expression.text()}};
      if (const auto listed = element.find("Parameters")) condition["Parameters"] = listed->json();
      conditions.push_back(condition);
    }
  }
  return {{"TuningParameters", parameters}, {"Conditions", conditions}};
}

std::string native_type(const Field& field) {
  const std::string type = field.text();
  for (const char* known : {"half", "bfloat16", "float", "double", "int32", "int64"})
    if (type == known) return type;
  field.fail("argument Type '" + type +
             "' is not supported (known: half, bfloat16, float, double, int32, int64)");
}

Json read_argument(const Field& field, Context& context) {
  allow_only(field, {"Name", "Type", "MemoryType", "AccessType", "Size", "TypeSize", "FillType", "FillValue",
                     "DataSource", "Output", "MemType"});
  const std::string name = identifier(field.at("Name"));
  Json argument = {{"Name", name}, {"Type", native_type(field.at("Type"))}};
  const std::string memory = field.at("MemoryType").text();
  const std::string fill = field.find("FillType") ? field.at("FillType").text() : "";
  if (fill == "Derived") field.at("FillType").fail(kNoDerivedInputs);
  if (const auto type_size = field.find("TypeSize"))
    ignore(*type_size, context, "the element size follows Type");
  bool constant = false;
  if (const auto mem_type = field.find("MemType")) {
    if (mem_type->text() == "Constant")
      constant = true;
    else if (mem_type->text() != "Global")
      mem_type->fail("MemType '" + mem_type->text() + "' is not supported (known: Global, Constant)");
  }
  if (memory == "Scalar") {
    if (constant) field.at("MemType").fail("a Scalar argument is passed by value, not in constant memory");
    for (const char* key : {"Size", "DataSource", "Output"})
      if (field.find(key)) field.at(key).fail("not allowed for a Scalar argument");
    if (!fill.empty() && fill != "Constant")
      field.at("FillType").fail("a Scalar argument takes a Constant FillValue");
    if (const auto access = field.find("AccessType"); access && access->text() != "ReadOnly")
      access->fail("a Scalar argument is ReadOnly");
    const auto value = field.at("FillValue");
    if (!value.json().is_number()) value.fail("expected a number");
    argument["MemoryType"] = "Scalar";
    argument["Value"] = value.json().dump();
    return argument;
  }
  if (memory != "Vector")
    field.at("MemoryType").fail("MemoryType '" + memory + "' is not supported (known: Vector, Scalar)");
  std::string access = field.find("AccessType") ? field.at("AccessType").text() : "ReadOnly";
  if (access != "ReadOnly" && access != "WriteOnly" && access != "ReadWrite")
    field.at("AccessType")
        .fail("unknown AccessType '" + access + "' (known: ReadOnly, WriteOnly, ReadWrite)");
  if (const auto output = field.find("Output"); output && output->json() != 0 && access == "ReadOnly")
    output->fail("an Output argument cannot be ReadOnly (the kernel writes it)");
  argument["MemoryType"] = "Vector";
  argument["Size"] = native_expression(field.at("Size"), context);
  argument["AccessType"] = access;
  // As the suite's runners do: copied into the __constant__ variable of the argument's name, and passed too.
  if (constant) {
    if (access != "ReadOnly") field.at("MemType").fail("a Constant argument must be ReadOnly");
    argument["ConstantSymbol"] = name;
  }
  if (access == "WriteOnly") {
    if (field.find("FillType"))
      ignore(field.at("FillType"), context, "WriteOnly buffers are NaN-poisoned before each launch");
    return argument;
  }
  if (fill == "Constant") {
    argument["FillType"] = "Constant";
    argument["FillValue"] = field.at("FillValue").number();
  } else if (fill == "Random" || fill.empty()) {
    const double high = field.find("FillValue") ? field.at("FillValue").number() : 1.0;
    argument["FillType"] = "Random";
    argument["FillRange"] = Json::array({std::min(0.0, high), std::max(0.0, high)});
  } else if (fill == "Generator") {
    // evotune fills on the device, uniformly: a generated sequence becomes values in a like range.
    ignore(field.at("FillType"), context, "Generator data become uniform values in [0, Size]");
    const Json size = field.at("Size").json();
    argument["FillType"] = "Random";
    argument["FillRange"] = Json::array({0.0, size.is_number() ? size.get<double>() : 1.0});
  } else {
    field.at("FillType")
        .fail("FillType '" + fill + "' is not supported (known: Constant, Random, Generator)");
  }
  if (const auto source = field.find("DataSource"); source && fill != "Generator")
    source->fail("DataSource needs FillType Generator");
  return argument;
}

Json read_dims(const Field& field, const Context& context) {
  allow_only(field, {"X", "Y", "Z"});
  Json dims = Json::object();
  for (const char* axis : {"X", "Y", "Z"})
    dims[axis] = field.find(axis) ? native_expression(field.at(axis), context) : "1";
  return dims;
}

// Kernel Tuner's grid: per axis, ceil(ProblemSize / the product of GridDiv's expressions), GridDiv defaulting
// to the block size of that axis; the suite's own Kernel Tuner runner takes it over GlobalSize when both are
// given.
Json grid_from_problem_size(const Field& section, const Json& block, const Context& context) {
  const Field problem = section.at("ProblemSize");
  const std::vector<Field> extents =
      problem.json().is_array() ? problem.elements() : std::vector<Field>{problem};
  if (extents.empty() || extents.size() > 3) problem.fail("expected one to three extents");
  const char* axes[] = {"X", "Y", "Z"};
  Json grid = Json::object();
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string axis = axes[i];
    if (i >= extents.size()) {
      grid[axis] = "1";
      continue;
    }
    std::string divisor;
    if (const auto divs = section.find("GridDiv" + axis)) {
      for (const auto& element : divs->elements())
        divisor += (divisor.empty() ? "(" : " * (") + native_expression(element, context) + ")";
    }
    if (divisor.empty()) divisor = block[axis].get<std::string>();
    grid[axis] = "cdiv(" + native_expression(extents[i], context) + ", " + divisor + ")";
  }
  return grid;
}

Json read_kernel(const Field& section, Context& context, Json& space) {
  allow_only(section, {"Language",       "CompilerOptions", "BenchmarkName", "KernelName",      "KernelFile",
                       "GlobalSizeType", "LocalSize",       "GlobalSize",    "SharedMemory",    "Arguments",
                       "Stream",         "BenchmarkPath",   "GridDivX",      "GridDivY",        "GridDivZ",
                       "ProblemSize",    "Device",          "Profiling",     "SimulationInput", "Misc"});
  for (const char* key : {"Stream", "BenchmarkPath", "Device", "Profiling", "SimulationInput", "Misc"})
    if (const auto field = section.find(key)) ignore(*field, context);
  const bool problem_size = section.find("ProblemSize").has_value();
  if (!problem_size)
    for (const char* key : {"GridDivX", "GridDivY", "GridDivZ"})
      if (const auto field = section.find(key)) ignore(*field, context, "used only with ProblemSize");
  if (const auto language = section.find("Language"); language && language->text() != "CUDA")
    language->fail("Language '" + language->text() + "' is not supported (evotune tunes CUDA)");
  const std::string size_type = section.find("GlobalSizeType") ? section.at("GlobalSizeType").text() : "CUDA";
  if (size_type != "CUDA" && size_type != "OpenCL")
    section.at("GlobalSizeType")
        .fail("GlobalSizeType '" + size_type + "' is not supported (known: CUDA, OpenCL)");
  Json kernel = {{"Language", "CUDA"},
                 {"KernelFile", section.at("KernelFile").text()},
                 {"KernelName", identifier(section.at("KernelName"))}};
  if (const auto options = section.find("CompilerOptions")) kernel["CompilerOptions"] = options->texts();
  const Json block = read_dims(section.at("LocalSize"), context);
  if (problem_size && section.find("GlobalSize"))
    ignore(section.at("GlobalSize"), context,
           "the grid is ProblemSize / GridDiv, as Kernel Tuner reads the file");
  Json grid = problem_size ? grid_from_problem_size(section, block, context)
                           : read_dims(section.at("GlobalSize"), context);
  if (size_type == "OpenCL" && !problem_size)  // a global size in threads: as many blocks as cover it
    for (const char* axis : {"X", "Y", "Z"})
      if (grid[axis] != "1" || block[axis] != "1")
        grid[axis] = "cdiv(" + grid[axis].get<std::string>() + ", " + block[axis].get<std::string>() + ")";
  kernel["GlobalSize"] = grid;
  kernel["LocalSize"] = block;
  if (const auto shared = section.find("SharedMemory")) {
    if (!shared->json().is_number() && !shared->json().is_string())
      shared->fail("expected a number of bytes");
    kernel["SharedMemory"] = native_expression(*shared, context);
  }
  Json arguments = Json::array();
  for (const auto& element : section.at("Arguments").elements())
    arguments.push_back(read_argument(element, context));
  kernel["Arguments"] = arguments;
  if (!space.contains("Name")) {
    if (const auto name = section.find("BenchmarkName")) space["Name"] = name->text();
  } else if (const auto name = section.find("BenchmarkName")) {
    ignore(*name, context);
  }
  return kernel;
}

Json t1_budget(const Field& field) {
  Json list = Json::array();
  const auto entries = field.json().is_object() ? std::vector<Field>{field} : field.elements();
  for (const auto& entry : entries) {
    allow_only(entry, {"Type", "BudgetValue"});
    list.push_back({{"Type", entry.at("Type").text()}, {"BudgetValue", entry.at("BudgetValue").json()}});
  }
  return list;
}

}  // namespace

bool is_t1_document(const nlohmann::ordered_json& document) {
  if (!document.is_object() || !document.contains("KernelSpecification")) return false;
  for (const char* native : {"Name", "Reference", "Problem", "Expressions", "Validation", "Work"})
    if (document.contains(native)) return false;
  return true;
}

T1Conversion convert_t1(const nlohmann::ordered_json& document, const std::string& label) {
  T1Conversion conversion;
  Context context;
  context.ignored = &conversion.ignored;
  const Field root = space_root(document, label);
  if (const auto derived = root.find("DerivedInputs")) derived->fail(kNoDerivedInputs);
  allow_only(root, {"General", "ConfigurationSpace", "Budget", "KernelSpecification", "BenchmarkConfig",
                    "Search", "Misc", "verification"});
  Json& space = conversion.space;
  space["General"] = {{"FormatVersion", 1}};
  if (const auto general = root.find("General"))
    for (const auto& [key, member] : general->members()) {
      if (key == "BenchmarkName")
        space["Name"] = member.text();
      else
        ignore(member, context);
    }
  if (const auto field = root.find("Search")) ignore(*field, context, "the strategy is evotune's");
  if (const auto field = root.find("Misc")) ignore(*field, context);
  if (const auto field = root.find("verification"))
    ignore(*field, context, "validated against the Default config");
  space["Description"] = "Converted from the T1 file " + label;
  if (const auto config = root.find("BenchmarkConfig")) read_benchmark_config(*config, space, context);
  Json defaults = Json::object();
  space["ConfigurationSpace"] = read_configuration_space(root.at("ConfigurationSpace"), context, defaults);
  if (space.contains("Problem")) {  // keep the native field order: ConfigurationSpace, then Problem
    Json problem = space["Problem"];
    space.erase("Problem");
    space["Problem"] = problem;
  }
  space["KernelSpecification"] = read_kernel(root.at("KernelSpecification"), context, space);
  if (!space.contains("Name")) space["Name"] = std::filesystem::path(label).stem().string();
  space["Reference"] = {{"Config", defaults}};
  // The reference is the same kernel at another config: float sums reordered, not a different algorithm.
  space["Validation"] = {{"AbsoluteTolerance", 1.0}, {"RelativeL2Tolerance", 1e-3}};
  if (const auto budget = root.find("Budget")) space["Budget"] = t1_budget(*budget);
  if (space.contains("Name")) {  // Name first, as in evotune's own files
    Json ordered = {{"General", space["General"]}, {"Name", space["Name"]}};
    for (auto& [key, value] : space.items())
      if (key != "General" && key != "Name") ordered[key] = value;
    space = ordered;
  }
  return conversion;
}

}  // namespace evotune
