// Resolves a space file's "Extends" and "Overrides" into the document the rest of the reader sees.
#include "space/space_extends.hpp"

#include <cstddef>
#include <regex>
#include <vector>

#include "core/error.hpp"

namespace evotune {
namespace {

using Json = nlohmann::ordered_json;

// One step of an Overrides path: a member `key`, then optionally a list element by Name or by index.
struct PathStep {
  std::string key;
  enum class Pick { none, name, index } pick = Pick::none;
  std::string name;
  std::size_t index = 0;
};

// Field, Field(Name) or Field[index], as scripts/space_doc.py reads them.
std::vector<PathStep> parse_path(const std::string& path, const std::string& where) {
  static const std::regex step_pattern(R"(^([^.()\[\]]+)(?:\(([^()]+)\)|\[([0-9]+)\])?$)");
  std::vector<PathStep> steps;
  std::size_t at = 0;
  while (true) {
    const std::size_t dot = path.find('.', at);
    const std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    std::smatch match;
    if (!std::regex_match(part, match, step_pattern))
      throw SpaceError(where + ": '" + part + "': expected Field, Field(Name) or Field[index]");
    PathStep step;
    step.key = match[1].str();
    if (match[2].matched) {
      step.pick = PathStep::Pick::name;
      step.name = match[2].str();
    } else if (match[3].matched) {
      step.pick = PathStep::Pick::index;
      step.index = std::stoul(match[3].str());
    }
    steps.push_back(step);
    if (dot == std::string::npos) return steps;
    at = dot + 1;
  }
}

// The field `path` names in `document` (which must have it), for assignment.
Json& field_at(Json& document, const std::string& path, const std::string& where) {
  Json* node = &document;
  std::string walked;
  for (const PathStep& step : parse_path(path, where)) {
    walked += (walked.empty() ? "" : ".") + step.key;
    if (!node->is_object() || !node->contains(step.key))
      throw SpaceError(where + ": the extended space has no field " + walked);
    node = &(*node)[step.key];
    if (step.pick == PathStep::Pick::none) continue;
    if (!node->is_array()) throw SpaceError(where + ": " + walked + " is not a list");
    if (step.pick == PathStep::Pick::index) {
      if (step.index >= node->size())
        throw SpaceError(where + ": " + walked + " has " + std::to_string(node->size()) + " elements, no [" +
                         std::to_string(step.index) + "]");
      node = &(*node)[step.index];
      walked += "[" + std::to_string(step.index) + "]";
      continue;
    }
    Json* found = nullptr;
    for (auto& element : *node)
      if (element.is_object() && element.contains("Name") && element["Name"] == step.name) found = &element;
    if (!found) throw SpaceError(where + ": " + walked + " has no element named '" + step.name + "'");
    node = found;
    walked += "(" + step.name + ")";
  }
  return *node;
}

Json resolve(const Json& document, const std::filesystem::path& file, const std::string& label,
             const SpaceDocumentReader& read, std::vector<std::filesystem::path>& chain) {
  const Json& extends = document["Extends"];
  const std::string name = extends.is_string() ? extends.get<std::string>() : std::string();
  const std::filesystem::path relative(name);
  if (name.empty() || relative.has_parent_path() || relative.filename() != relative)
    throw SpaceError(label +
                     ": Extends: expected the file name of a space in the same folder (the base's "
                     "relative paths are read from there), got " +
                     extends.dump());
  const std::filesystem::path base = file.parent_path() / relative;
  chain.push_back(std::filesystem::weakly_canonical(file));
  const auto canonical = std::filesystem::weakly_canonical(base);
  for (const auto& seen : chain)
    if (seen == canonical) {
      std::string cycle;
      for (const auto& step : chain) cycle += step.filename().string() + " -> ";
      throw SpaceError(label + ": Extends: a cycle (" + cycle + base.filename().string() + ")");
    }
  Json resolved = read(base);
  if (!resolved.is_object())
    throw SpaceError(label + ": Extends: " + name + " is not a space (not an object)");
  if (extends_another(resolved)) resolved = resolve(resolved, base, base.string(), read, chain);
  const Json base_name = resolved.value("Name", Json());
  if (!document.contains("Name") || document["Name"] == base_name)
    throw SpaceError(label +
                     ": Extends: an extending space needs a Name of its own (its results are stored "
                     "under it), not " +
                     base_name.dump());
  for (const auto& [key, value] : document.items())
    if (key != "Extends" && key != "Overrides") resolved[key] = value;
  if (!document.contains("Overrides")) return resolved;
  const Json& overrides = document["Overrides"];
  if (!overrides.is_object())
    throw SpaceError(label + ": Overrides: expected an object of field paths and values");
  for (const auto& [path, value] : overrides.items())
    field_at(resolved, path, label + ": Overrides." + path) = value;
  return resolved;
}

}  // namespace

bool extends_another(const Json& document) { return document.is_object() && document.contains("Extends"); }

Json resolve_extends(const Json& document, const std::filesystem::path& file, const std::string& label,
                     const SpaceDocumentReader& read) {
  std::vector<std::filesystem::path> chain;
  return resolve(document, file, label, read, chain);
}

}  // namespace evotune
