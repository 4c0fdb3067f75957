// Covers for a dispatching export: configs measured beside the winners, kept so that the sizes next to each
// tuned problem are served where no winner runs there (a GEMM tuned at N = 4096 whose winners all store D
// through a tensor map, which needs N a multiple of 8, would otherwise refuse N = 4097).
#pragma once

#include <cstddef>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "space/dispatch_table.hpp"
#include "space/search_space.hpp"

namespace evotune {

// The sizes next to `tuned`: each run-time size one less (not below 1), one more, and 1, one at a time; then
// the space's extra problems of it (e.g. S + 1). Each once, `tuned` itself never.
std::vector<Sizes> neighbour_problems(const SearchSpace& space, const Sizes& tuned);

// For each tuned problem of `table`, in order, and each of its neighbours where nothing of `table` runs (no
// winner, default or cover that the space's conditions accept there on `device`): adds as a cover the fastest
// config measured at that tuned problem that runs there, if one does. At most `per_kind` covers for each set
// of compile-time sizes. Returns how many were added.
std::size_t add_neighbour_covers(const SearchSpace& space, DispatchTable& table, const DeviceInfo& device,
                                 std::size_t per_kind = 4);

}  // namespace evotune
