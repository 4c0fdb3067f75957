// Which symbol of a compiled module is the kernel a space names: the name itself for an extern "C" kernel, or
// the C++ mangling of a kernel at namespace scope that is not extern "C".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace evotune {

// `name` when `symbols` holds it; else the one symbol that mangles a function of that name at global
// namespace scope, not a template (Itanium ABI: "_Z" <length> <name> <parameter types>, e.g.
// "_Z9cn_pnpolyPiP6float2i"); nullopt when there is none or more than one (overloads).
std::optional<std::string> kernel_symbol(const std::string& name, const std::vector<std::string>& symbols);

}  // namespace evotune
