// A space file that extends another: "Extends" names a space file in the same folder, whose document this one
// is read as, with this file's own top-level members in place of the base's and its "Overrides" (field path
// -> value) applied last. For twins that differ in a few fields (an element type, a compiler option,
// tolerances).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace evotune {

// Reads and parses a space file's document (the caller's errors: unreadable file, malformed JSON).
using SpaceDocumentReader = std::function<nlohmann::ordered_json(const std::filesystem::path&)>;

// Whether `document` extends another space (has a top-level "Extends").
bool extends_another(const nlohmann::ordered_json& document);

// The document `file` (whose parsed content is `document`, its label `label`) is read as: its base's,
// resolved the same way where the base extends another in turn, with `document`'s members but Extends and
// Overrides in place of the base's (a new one after them), then each Overrides entry's value at its path. A
// path is the field names of the error messages joined by dots, a list element chosen by its Name,
// `Arguments(A)`, or its index, `Seeds[0]`; each must name a field the base has. Throws SpaceError ("FILE:
// Extends: ...", "FILE: Overrides.PATH: ...") on a base outside the folder, a cycle, a missing Name or the
// base's, a path that names nothing.
nlohmann::ordered_json resolve_extends(const nlohmann::ordered_json& document,
                                       const std::filesystem::path& file, const std::string& label,
                                       const SpaceDocumentReader& read);

}  // namespace evotune
