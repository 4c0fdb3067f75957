// The schema's migrations: the same list on every backend.
#pragma once

#include <string>

#include "store/sql.hpp"

namespace evotune {

int migration_count();
// The SQL that takes the schema from version `from_version` to the next, as `backend` reads it.
std::string migration(sql::Backend backend, int from_version);

}  // namespace evotune
