// Ordering a list of problems so that each search starts near one tuned before.
#include "session/problem_sequence.hpp"

#include <algorithm>
#include <set>

#include "space/shape_transfer.hpp"
#include "store/store.hpp"

namespace evotune {

std::vector<std::string> tuning_sequence(const SearchSpace& space, const std::filesystem::path& db_file,
                                         const std::vector<Sizes>& problems) {
  std::vector<Sizes> resolved;
  for (const Sizes& sizes : problems)
    if (std::find(resolved.begin(), resolved.end(), sizes) == resolved.end()) resolved.push_back(sizes);
  std::vector<Sizes> tuned;
  if (std::filesystem::exists(db_file)) {
    const Store store = Store::open_existing(db_file);
    if (const auto space_id = store.find_space(space.hash())) {
      std::set<Sizes> seen;
      for (const ProblemTime& time : store.ok_times_by_problem(*space_id))
        if (seen.insert(time.problem).second) tuned.push_back(time.problem);
    }
  }
  std::vector<std::string> sequence;
  for (const std::size_t index : transfer_order(resolved, tuned))
    sequence.push_back(key_value_text(resolved[index]));
  return sequence;
}

}  // namespace evotune
