// The problems of a multi-problem tune: expanded, resolved, without repeats, in transfer order.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "space/search_space.hpp"

namespace evotune {

// The problems (resolved: resolve_problems) without repeats, ordered with transfer_order: problems of this
// space version already stored in db_file (when it exists) count as tuned, so the first new problem is the
// one nearest to them. Returns override texts naming every size ("B=1,D=64,H=8,S=512").
std::vector<std::string> tuning_sequence(const SearchSpace& space, const std::filesystem::path& db_file,
                                         const std::vector<Sizes>& problems);

}  // namespace evotune
