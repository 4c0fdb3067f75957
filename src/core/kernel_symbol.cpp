// Resolving a kernel's name to its symbol in a compiled module.
#include "core/kernel_symbol.hpp"

#include <algorithm>

namespace evotune {

std::optional<std::string> kernel_symbol(const std::string& name, const std::vector<std::string>& symbols) {
  if (name.empty()) return std::nullopt;
  if (std::find(symbols.begin(), symbols.end(), name) != symbols.end()) return name;
  const std::string prefix = "_Z" + std::to_string(name.size()) + name;
  std::optional<std::string> found;
  for (const std::string& symbol : symbols) {
    // The parameter types follow the name; 'I' would open template arguments, 'E' close a nested name.
    if (symbol.size() <= prefix.size() || symbol.compare(0, prefix.size(), prefix) != 0) continue;
    const char next = symbol[prefix.size()];
    if (next == 'I' || next == 'E') continue;
    if (found) return std::nullopt;  // overloads: which one is meant is not the file's to say
    found = symbol;
  }
  return found;
}

}  // namespace evotune
