// Reading problem texts ("B=1, H=8"): trimming and splitting at commas, shared by --problem and its ranges.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace evotune {

// `text` without leading and trailing spaces and tabs.
inline std::string trim_blanks(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// The comma-separated items of `text`, each trimmed; "" is one empty item, "a," ends with one.
inline std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    items.push_back(trim_blanks(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return items;
}

}  // namespace evotune
