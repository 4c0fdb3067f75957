// The dispatch table of a space version from the results database: every stored problem with its ok times.
#pragma once

#include <cstdint>

#include "space/dispatch_table.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"

namespace evotune {

// Each problem measured for the space version `space_id` (fastest ok median of each config over devices),
// in the store's problem order. Throws Error when no problem has an ok result.
DispatchTable stored_dispatch_table(const SearchSpace& space, const Store& store, std::int64_t space_id);

}  // namespace evotune
