// A space file plus its rows in the results database: what `best` and `export` start from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "space/search_space.hpp"
#include "store/store.hpp"

namespace evotune::cli {

struct StoredSpace {
  SearchSpace space;
  Sizes sizes;
  Store store;
  std::optional<std::int64_t> space_id;    // absent: this version of the space was never tuned
  std::optional<std::int64_t> problem_id;  // absent: this problem was never tuned

  // The stored results of this space and problem: `query` says how many and whether failures too (its space
  // and problem are these).
  std::vector<RankedResult> best(BestQuery query) const;
};

// The row of this version of the space in `store` (the database file `db`). Throws Error with one line when
// there is none, saying how many older versions have results.
std::int64_t stored_space_id(const SearchSpace& space, const Store& store, const std::string& space_file,
                             const std::string& db);

// Loads the space, resolves the problem, opens an existing database. Throws Error with one line when the
// database is missing; when this space version has no results it says how many older versions do.
StoredSpace open_stored_space(const std::string& space_file, const std::string& problem,
                              const std::string& db);

// The tuning parameters of config `config_id` in `stored`'s database (the file `db`). Throws Error with one
// line when there is no such config, or when it belongs to another space or another version of this one.
Config stored_config_params(const StoredSpace& stored, long long config_id, const std::string& space_file,
                            const std::string& db);

}  // namespace evotune::cli
