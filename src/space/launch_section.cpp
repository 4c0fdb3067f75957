// Reads KernelSpecification.Launches: the kernels a variant runs in order, each with its arguments, an If and
// whether it is launched as a programmatic dependent of the launch before it (of the variant, or "always":
// also of the kernel before the call where it runs first), for the variants whose ProgrammaticIf holds.
#include <algorithm>

#include "space/space_file.hpp"

namespace evotune {
namespace {

const ArgumentDecl* find_argument(const SpaceFile& space, const std::string& name) {
  for (const auto& argument : space.arguments)
    if (argument.name == name) return &argument;
  return nullptr;
}

LaunchDecl read_entry(const Field& entry, const SpaceFile& space, bool first) {
  allow_only(entry, {"If", "KernelName", "GlobalSize", "LocalSize", "SharedMemory", "ClusterSize",
                     "Arguments", "Programmatic", "ProgrammaticIf"});
  LaunchDecl launch{"", space.kernel};
  if (const auto programmatic = entry.find("Programmatic")) {
    if (programmatic->json().is_string()) {
      if (programmatic->text() != "always")
        programmatic->fail("expected true, false or \"always\", got \"" + programmatic->text() + "\"");
      launch.programmatic = launch.programmatic_first = true;
    } else {
      launch.programmatic = programmatic->boolean();
      if (launch.programmatic && first)
        programmatic->fail(
            "the first launch has no launch of the variant before it to depend on (\"always\": on the "
            "kernel before the call)");
    }
  }
  if (const auto condition = entry.find("ProgrammaticIf")) {
    if (!launch.programmatic)
      condition->fail("a condition of \"Programmatic\" (true or \"always\"), which this launch does not set");
    launch.programmatic_condition = expression_text(*condition);
  }
  launch.kernel.arguments.clear();
  if (const auto condition = entry.find("If")) launch.condition = expression_text(*condition);
  if (const auto name = entry.find("KernelName")) launch.kernel.name = identifier(*name);
  if (const auto grid = entry.find("GlobalSize")) launch.kernel.grid = read_dims(*grid);
  if (const auto block = entry.find("LocalSize")) launch.kernel.block = read_dims(*block);
  if (const auto shared = entry.find("SharedMemory")) launch.kernel.shared_memory = expression_text(*shared);
  if (const auto cluster = entry.find("ClusterSize")) launch.kernel.cluster = read_dims(*cluster);
  const auto arguments = entry.at("Arguments");
  for (const auto& element : arguments.elements()) {
    const std::string name = element.text();
    if (!find_argument(space, name))
      element.fail("unknown argument '" + name + "' (not in KernelSpecification.Arguments)");
    auto& taken = launch.kernel.arguments;
    if (std::find(taken.begin(), taken.end(), name) != taken.end())
      element.fail("argument '" + name + "' listed twice");
    taken.push_back(name);
  }
  return launch;
}

// Whether the launch argument `name` is the buffer `buffer`, or a tensor map that may describe it.
bool names_buffer(const SpaceFile& space, const std::string& name, const std::string& buffer) {
  if (name == buffer) return true;
  const auto map = std::find_if(space.arguments.begin(), space.arguments.end(),
                                [&](const ArgumentDecl& a) { return a.name == name && a.is_tensor_map; });
  if (map == space.arguments.end()) return false;
  return map->map_buffer == buffer ||
         std::any_of(map->map_buffer_if.begin(), map->map_buffer_if.end(),
                     [&](const MapBufferChoice& choice) { return choice.buffer == buffer; });
}

}  // namespace

void read_launches(const Field& section, SpaceFile& space) {
  const auto launches = section.find("Launches");
  if (!launches) {
    space.launches.push_back({"", space.kernel});
    return;
  }
  space.launches_listed = true;
  const auto entries = launches->elements();
  if (entries.empty()) launches->fail("empty list (leave Launches out for a single launch)");
  for (const auto& entry : entries)
    space.launches.push_back(read_entry(entry, space, space.launches.empty()));
  const auto arguments = section.at("Arguments").elements();
  for (std::size_t i = 0; i < space.arguments.size(); ++i) {
    const auto& argument = space.arguments[i];
    const bool passed =
        std::any_of(space.launches.begin(), space.launches.end(), [&](const LaunchDecl& launch) {
          return std::any_of(
              launch.kernel.arguments.begin(), launch.kernel.arguments.end(),
              [&](const std::string& name) { return names_buffer(space, name, argument.name); });
        });
    if (!passed && (argument.is_output || argument.is_scratch))
      arguments[i].fail(std::string(argument.is_scratch ? "scratch" : "output") + " '" + argument.name +
                        "' is passed to no launch in KernelSpecification.Launches");
  }
}

}  // namespace evotune
