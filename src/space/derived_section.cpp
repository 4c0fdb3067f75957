// Reads DerivedInputs: the kernel that computes inputs from other inputs (a backward pass's O and LSE from Q,
// K and V) after they are filled, and checks it against the arguments of FillType Derived.
#include <algorithm>

#include "space/space_file.hpp"

namespace evotune {

void read_derived_inputs_section(const Field& root, const std::filesystem::path& folder, SpaceFile& space) {
  const auto arguments = root.at("KernelSpecification").at("Arguments").elements();
  const auto section = root.find("DerivedInputs");
  if (!section) {
    for (std::size_t i = 0; i < space.arguments.size(); ++i)
      if (space.arguments[i].fill.kind == FillSpec::Kind::derived)
        arguments[i]
            .at("FillType")
            .fail("FillType Derived needs a DerivedInputs section: the kernel that computes '" +
                  space.arguments[i].name + "' from the other inputs");
    return;
  }
  allow_only(*section, {"KernelFile", "KernelName", "GlobalSize", "LocalSize", "SharedMemory", "Arguments"});
  KernelDecl& derived = space.derived.emplace();
  read_kernel_and_geometry(*section, folder, derived, space.derived_source);
  const auto list = section->at("Arguments");
  derived.arguments = read_argument_names(list, space, "the DerivedInputs kernel");
  const auto elements = list.elements();
  for (std::size_t i = 0; i < derived.arguments.size(); ++i)
    for (const auto& argument : space.arguments)
      if (argument.name == derived.arguments[i] && argument.is_vector && !argument.is_input)
        elements[i].fail(
            "'" + argument.name +
            "' is an output (AccessType WriteOnly): the DerivedInputs kernel runs on the inputs, "
            "before the variant");
  bool any = false;
  for (const auto& argument : space.arguments) {
    if (argument.fill.kind != FillSpec::Kind::derived) continue;
    any = true;
    if (std::find(derived.arguments.begin(), derived.arguments.end(), argument.name) ==
        derived.arguments.end())
      list.fail(
          "'" + argument.name +
          "' has FillType Derived but is not among the arguments: the DerivedInputs kernel must write it");
  }
  if (!any)
    section->fail(
        "no argument has FillType Derived: nothing for the kernel to compute (leave DerivedInputs out)");
}

}  // namespace evotune
