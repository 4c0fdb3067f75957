// Problem sizes from text: the space file's defaults overridden by "B=1,H=8,S=512,D=64" (--problem).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "space/space_decl.hpp"

namespace evotune {

// Every declared size: its default (an expression default evaluated over the sizes before it, given or not),
// or the value given in `overrides` (items NAME=VALUE separated by commas, spaces allowed around them; empty
// text: all defaults). Throws Error, one line naming the key, on an unknown key, a key given twice, a
// malformed item, a non-positive value (for a size with no Values list) or a value outside the size's Values.
Sizes resolve_sizes(const std::vector<SizeSpec>& specs, const std::string& overrides);
// Why `value` cannot be the size's value ("is not allowed (allowed: 0, 1)", "is not positive" for a size with
// no Values list); nullopt where it can.
std::optional<std::string> size_value_error(const SizeSpec& spec, std::int64_t value);
// `given` with every declared size it lacks at its default (expression defaults evaluated over the sizes
// before them). Throws Error as complete_sizes.
Sizes with_defaults(const std::vector<SizeSpec>& specs, Sizes given);
// `sizes` with each size of an expression default that it lacks added (a problem stored or recorded before
// the size was declared: K/V heads defaulting to H). Throws Error where a default is not a positive integer
// or not in the size's Values.
Sizes complete_sizes(const std::vector<SizeSpec>& specs, Sizes sizes);

}  // namespace evotune
