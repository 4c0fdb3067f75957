// Looks a space version and problem up in the results database.
#include "cli/stored_space.hpp"

#include "core/error.hpp"

namespace evotune::cli {

std::vector<RankedResult> StoredSpace::best(BestQuery query) const {
  if (!space_id || !problem_id) return {};
  query.space_id = *space_id;
  query.problem_id = *problem_id;
  return store.best(query);
}

std::int64_t stored_space_id(const SearchSpace& space, const Store& store, const std::string& space_file,
                             const std::string& db) {
  const auto space_id = store.find_space(space.hash());
  if (!space_id) {
    const auto older = store.count_older_versions(space.name(), space.hash());
    throw Error("no results for " + space.name() + " (version " + space.hash() + ") in " + db +
                (older > 0
                     ? ": " + std::to_string(older) +
                           " older version(s) of this space have results; the space file, its template or "
                           "reference changed since"
                     : ": run `evotune tune " + space_file + "` first"));
  }
  return *space_id;
}

StoredSpace open_stored_space(const std::string& space_file, const std::string& problem,
                              const std::string& db) {
  SearchSpace space = SearchSpace::load(space_file);
  Sizes sizes = space.resolve_problem(problem);
  Store store = Store::open_existing(db);
  const std::int64_t space_id = stored_space_id(space, store, space_file, db);
  const auto problem_id = store.find_problem(sizes);
  if (!problem_id)
    throw Error("no results for " + space.name() + " with problem " + key_value_text(sizes) + " in " + db);
  return StoredSpace{std::move(space), std::move(sizes), std::move(store), space_id, problem_id};
}

Config stored_config_params(const StoredSpace& stored, long long config_id, const std::string& space_file,
                            const std::string& db) {
  const auto detail = stored.store.config_detail(config_id);
  if (!detail) throw Error("no config " + std::to_string(config_id) + " in " + db);
  if (detail->space_hash != stored.space.hash())
    throw Error("config " + std::to_string(config_id) + " belongs to " + detail->space_name + " (" +
                detail->space_hash + "), not to " + space_file + " as it is now (" + stored.space.hash() +
                ")");
  return detail->params;
}

}  // namespace evotune::cli
