// Reads KernelSpecification (the template, its launch geometry and arguments) and Reference, and the parts
// DerivedInputs shares with the Reference (derived_section.cpp).
#include <algorithm>
#include <array>

#include "core/dtype.hpp"
#include "space/space_file.hpp"

namespace evotune {
namespace {

std::string read_kernel_file(const Field& field, const std::filesystem::path& folder,
                             std::filesystem::path& resolved) {
  const std::filesystem::path given = field.text();
  resolved = (given.is_absolute() ? given : folder / given).lexically_normal();
  const auto text = read_text_file(resolved);
  if (!text) field.fail("file not found: " + resolved.string());
  return *text;
}

// A fill, or (`special`) one of SpecialFills, which cannot be Derived.
FillDecl read_fill(const Field& field, bool special) {
  FillDecl fill;
  const std::string type = field.find("FillType") ? field.at("FillType").text() : "Random";
  if (type == "Derived") {
    if (special)
      field.at("FillType")
          .fail("FillType Derived is not a special fill (a Derived buffer is always computed)");
    for (const char* key : {"FillRange", "FillValue"})
      if (field.find(key))
        field.at(key).fail("not allowed with FillType Derived (the DerivedInputs kernel writes the buffer)");
    fill.kind = FillSpec::Kind::derived;
  } else if (type == "Random") {
    if (field.find("FillValue")) field.at("FillValue").fail("FillValue needs FillType Constant");
    if (const auto range = field.find("FillRange")) {
      const auto bounds = range->elements();
      if (bounds.size() != 2) range->fail("expected [low, high]");
      fill.low = expression_text(bounds[0]);
      fill.high = expression_text(bounds[1]);
      // Bounds that are expressions are compared when a problem gives them values (SpaceModel::buffers).
      if (bounds[0].json().is_number() && bounds[1].json().is_number() &&
          bounds[0].number() > bounds[1].number())
        range->fail("low is above high");
    }
  } else if (type == "Constant") {
    if (field.find("FillRange")) field.at("FillRange").fail("FillRange needs FillType Random");
    fill.kind = FillSpec::Kind::constant;
    fill.value = expression_text(field.at("FillValue"));
  } else {
    field.at("FillType").fail("unknown FillType '" + type + "' (known: Random, Constant, Derived)");
  }
  return fill;
}

// MemoryType TensorMap: the buffer and each dimension's expressions; the buffer is checked once every
// argument is read.
ArgumentDecl read_tensor_map(const Field& field) {
  allow_only(field, {"Name", "MemoryType", "Buffer", "BufferIf", "Dims", "Strides", "Box", "Swizzle"});
  ArgumentDecl argument;
  argument.name = identifier(field.at("Name"));
  argument.is_vector = false;
  argument.is_input = false;
  argument.is_tensor_map = true;
  argument.map_buffer = identifier(field.at("Buffer"));
  if (const auto choices = field.find("BufferIf")) {
    if (choices->elements().empty()) choices->fail("empty list (leave BufferIf out to map Buffer always)");
    for (const auto& choice : choices->elements()) {
      allow_only(choice, {"If", "Buffer"});
      argument.map_buffer_if.push_back({expression_text(choice.at("If")), identifier(choice.at("Buffer"))});
    }
  }
  auto expressions = [&](const char* key) {
    std::vector<std::string> texts;
    for (const auto& element : field.at(key).elements()) texts.push_back(expression_text(element));
    return texts;
  };
  argument.map_dims = expressions("Dims");
  if (argument.map_dims.empty() || argument.map_dims.size() > 5)
    field.at("Dims").fail("a tensor map has 1 to 5 dimensions, not " +
                          std::to_string(argument.map_dims.size()));
  argument.map_box = expressions("Box");
  if (argument.map_box.size() != argument.map_dims.size())
    field.at("Box").fail("one entry per dimension: " + std::to_string(argument.map_dims.size()) +
                         " expected, " + std::to_string(argument.map_box.size()) + " given");
  if (field.find("Strides")) {
    argument.map_strides = expressions("Strides");
    if (argument.map_strides.size() + 1 != argument.map_dims.size())
      field.at("Strides").fail(
          "one entry per dimension but the first: " + std::to_string(argument.map_dims.size() - 1) +
          " expected, " + std::to_string(argument.map_strides.size()) + " given");
  }
  if (const auto swizzle = field.find("Swizzle")) {
    const std::string name = swizzle->text();
    if (name == "none")
      argument.map_swizzle_bytes = 0;
    else if (name == "32B" || name == "64B" || name == "128B")
      argument.map_swizzle_bytes = std::stoi(name);
    else
      swizzle->fail("unknown Swizzle '" + name + "' (known: none, 32B, 64B, 128B)");
  }
  return argument;
}

ArgumentDecl read_argument(const Field& field) {
  if (field.at("MemoryType").text() == "TensorMap") return read_tensor_map(field);
  allow_only(field, {"Name", "Type", "MemoryType", "Size", "AccessType", "FillType", "FillRange", "FillValue",
                     "SpecialFills", "Value", "ConstantSymbol"});
  ArgumentDecl argument;
  argument.name = identifier(field.at("Name"));
  const std::string type = field.at("Type").text();
  const auto dtype = dtype_from_string(type);
  if (!dtype)
    field.at("Type").fail("unknown Type '" + type + "' (known: half, bfloat16, float, double, int32, int64)");
  argument.dtype = *dtype;
  const std::string memory = field.at("MemoryType").text();
  if (const auto fill = field.find("FillType"); fill && fill->text() == "Derived") {
    const std::string access = field.find("AccessType") ? field.at("AccessType").text() : "";
    if (memory != "Vector" || (!access.empty() && access != "ReadOnly"))
      fill->fail("FillType Derived needs a ReadOnly Vector argument; '" + argument.name + "' is " +
                 (memory == "Vector" ? "AccessType " + access : "a " + memory + " argument"));
    if (field.find("SpecialFills"))
      field.at("SpecialFills")
          .fail(
              "a Derived buffer has no SpecialFills: the DerivedInputs kernel computes it from the others'");
  }
  if (memory == "Scratch") {
    for (const char* key : {"AccessType", "FillRange", "FillValue", "SpecialFills", "Value"})
      if (field.find(key))
        field.at(key).fail("not allowed for a Scratch argument (it is NaN-poisoned, never compared)");
    if (const auto fill = field.find("FillType")) {
      if (fill->text() != "Zero")
        fill->fail(
            "a Scratch argument's FillType is Zero (cleared before every execution) or absent "
            "(NaN-poisoned), not '" +
            fill->text() + "'");
      argument.scratch_zeroed = true;
    }
    argument.is_scratch = true;
    argument.is_input = false;
    argument.size_expr = expression_text(field.at("Size"));
    return argument;
  }
  if (memory == "Scalar") {
    argument.is_vector = false;
    for (const char* key : {"Size", "FillType", "FillRange", "FillValue", "SpecialFills"})
      if (field.find(key)) field.at(key).fail("not allowed for a Scalar argument");
    if (const auto access = field.find("AccessType"); access && access->text() != "ReadOnly")
      access->fail("a Scalar argument is ReadOnly");
    argument.value_expr = expression_text(field.at("Value"));
    return argument;
  }
  if (memory != "Vector")
    field.at("MemoryType")
        .fail("unknown MemoryType '" + memory + "' (known: Vector, Scalar, Scratch, TensorMap)");
  if (field.find("Value")) field.at("Value").fail("not allowed for a Vector argument (use Size)");
  argument.size_expr = expression_text(field.at("Size"));
  const std::string access = field.at("AccessType").text();
  if (access != "ReadOnly" && access != "WriteOnly" && access != "ReadWrite")
    field.at("AccessType")
        .fail("unknown AccessType '" + access + "' (known: ReadOnly, WriteOnly, ReadWrite)");
  argument.is_input = access != "WriteOnly";
  argument.is_output = access != "ReadOnly";
  if (!argument.is_input) {
    for (const char* key : {"FillType", "FillRange", "FillValue", "SpecialFills"})
      if (field.find(key)) field.at(key).fail("a WriteOnly argument is not filled (it is NaN-poisoned)");
  }
  argument.fill = read_fill(field, false);
  if (const auto special = field.find("SpecialFills"))
    for (const auto& fill : special->elements()) {
      allow_only(fill, {"FillType", "FillRange", "FillValue"});
      argument.special_fills.push_back(read_fill(fill, true));
    }
  if (const auto symbol = field.find("ConstantSymbol")) {
    if (!argument.is_input) symbol->fail("a WriteOnly argument has no contents to copy into constant memory");
    argument.constant_symbol = identifier(*symbol);
  }
  return argument;
}

}  // namespace

void read_kernel_and_geometry(const Field& section, const std::filesystem::path& folder, KernelDecl& kernel,
                              std::string& source) {
  source = read_kernel_file(section.at("KernelFile"), folder, kernel.file);
  kernel.name = identifier(section.at("KernelName"));
  kernel.grid = read_dims(section.at("GlobalSize"));
  kernel.block = read_dims(section.at("LocalSize"));
  if (const auto shared = section.find("SharedMemory")) kernel.shared_memory = expression_text(*shared);
}

std::vector<std::string> read_argument_names(const Field& list, const SpaceFile& space,
                                             const std::string& who) {
  std::vector<std::string> taken;
  for (const auto& element : list.elements()) {
    const std::string name = element.text();
    const auto& known = space.kernel.arguments;
    if (std::find(known.begin(), known.end(), name) == known.end())
      element.fail("unknown argument '" + name + "' (not in KernelSpecification.Arguments)");
    for (const auto& argument : space.arguments)
      if (argument.name == name && argument.is_scratch)
        element.fail("'" + name + "' is a Scratch argument, the variant's own: " + who + " cannot take it");
      else if (argument.name == name && argument.is_tensor_map)
        element.fail("'" + name + "' is a TensorMap argument: " + who + " takes plain buffers");
    if (std::find(taken.begin(), taken.end(), name) != taken.end())
      element.fail("argument '" + name + "' listed twice");
    taken.push_back(name);
  }
  return taken;
}

std::array<std::string, 3> read_dims(const Field& field) {
  allow_only(field, {"X", "Y", "Z"});
  std::array<std::string, 3> dims{"1", "1", "1"};
  dims[0] = expression_text(field.at("X"));
  if (const auto y = field.find("Y")) dims[1] = expression_text(*y);
  if (const auto z = field.find("Z")) dims[2] = expression_text(*z);
  return dims;
}

void read_kernel_section(const Field& section, const std::filesystem::path& folder, SpaceFile& space) {
  allow_only(section,
             {"Language", "KernelFile", "KernelName", "CompilerOptions", "ArchSuffix", "GlobalSizeType",
              "GlobalSize", "LocalSize", "SharedMemory", "ClusterSize", "Arguments", "Launches"});
  if (const auto language = section.find("Language"); language && language->text() != "CUDA")
    language->fail("unsupported Language '" + language->text() + "' (evotune tunes CUDA)");
  if (const auto type = section.find("GlobalSizeType"); type && type->text() != "CUDA")
    type->fail("unsupported GlobalSizeType '" + type->text() + "' (use CUDA: GlobalSize counts blocks)");
  read_kernel_and_geometry(section, folder, space.kernel, space.template_source);
  if (const auto cluster = section.find("ClusterSize")) space.kernel.cluster = read_dims(*cluster);
  if (const auto options = section.find("CompilerOptions")) space.compiler_options = options->texts();
  if (const auto suffix = section.find("ArchSuffix")) {
    space.arch_suffix = suffix->text();
    if (space.arch_suffix != "" && space.arch_suffix != "a")
      suffix->fail("unknown ArchSuffix '" + space.arch_suffix + "' (known: \"\", \"a\")");
  }
  const auto arguments = section.at("Arguments");
  bool has_output = false;
  for (const auto& element : arguments.elements()) {
    auto argument = read_argument(element);
    for (const auto& earlier : space.arguments)
      if (earlier.name == argument.name)
        element.at("Name").fail("duplicate argument '" + argument.name + "'");
    has_output = has_output || argument.is_output;
    space.kernel.arguments.push_back(argument.name);
    space.arguments.push_back(std::move(argument));
  }
  if (!has_output)
    arguments.fail("no output argument (AccessType WriteOnly or ReadWrite): nothing to validate");
  const auto elements = arguments.elements();
  for (std::size_t i = 0; i < space.arguments.size(); ++i) {
    ArgumentDecl& map = space.arguments[i];
    if (!map.is_tensor_map) continue;
    // A map describes a device buffer: a Vector, or a Scratch (a copy that an earlier launch stages).
    const auto buffer_of = [&](const std::string& name, const Field& at) -> const ArgumentDecl& {
      const auto buffer = std::find_if(space.arguments.begin(), space.arguments.end(),
                                       [&](const ArgumentDecl& a) { return a.name == name; });
      if (buffer == space.arguments.end()) at.fail("unknown argument '" + name + "'");
      if (!buffer->is_vector) at.fail("'" + name + "' is not a Vector or Scratch argument");
      return *buffer;
    };
    map.dtype = buffer_of(map.map_buffer, elements[i].at("Buffer")).dtype;
    for (std::size_t c = 0; c < map.map_buffer_if.size(); ++c) {
      const Field at = elements[i].at("BufferIf").elements()[c].at("Buffer");
      const ArgumentDecl& other = buffer_of(map.map_buffer_if[c].buffer, at);
      if (other.dtype != map.dtype)
        at.fail("'" + other.name + "' is " + std::string(to_string(other.dtype)) + " but the map's Buffer '" +
                map.map_buffer + "' is " + std::string(to_string(map.dtype)) +
                ": every buffer of a map has its type");
    }
  }
  read_launches(section, space);
}

namespace {

// Reference.Config: every tuning parameter with one of its values; the reference is the template at it.
void read_reference_config(const Field& section, SpaceFile& space) {
  allow_only(section, {"Config"});
  const auto listed = section.at("Config");
  if (space.launches_listed)
    listed.fail("a space with KernelSpecification.Launches needs a reference kernel of its own");
  Config config;
  for (const auto& [name, value] : listed.members()) {
    const auto parameter = std::find_if(space.parameters.begin(), space.parameters.end(),
                                        [&](const TuningParameter& p) { return p.name == name; });
    if (parameter == space.parameters.end()) value.fail("'" + name + "' is not a tuning parameter");
    const auto number = value.integer();
    if (std::find(parameter->values.begin(), parameter->values.end(), number) == parameter->values.end())
      value.fail(std::to_string(number) + " is not one of its Values");
    config[name] = number;
  }
  for (const auto& parameter : space.parameters)
    if (!config.count(parameter.name))
      listed.fail("no value for the tuning parameter '" + parameter.name + "'");
  space.reference_config = config;
  space.reference = space.kernel;
  space.reference_source = space.template_source;
}

}  // namespace

void read_reference_section(const Field& section, const std::filesystem::path& folder, SpaceFile& space) {
  if (section.find("Config")) return read_reference_config(section, space);
  allow_only(section, {"KernelFile", "KernelName", "GlobalSize", "LocalSize", "SharedMemory", "Arguments"});
  read_kernel_and_geometry(section, folder, space.reference, space.reference_source);
  space.reference.arguments = read_argument_names(section.at("Arguments"), space, "the reference");
  for (const auto& argument : space.arguments) {
    const auto& taken = space.reference.arguments;
    if (argument.is_output && std::find(taken.begin(), taken.end(), argument.name) == taken.end())
      section.at("Arguments").fail("output '" + argument.name + "' is missing: the reference must write it");
  }
}

}  // namespace evotune
