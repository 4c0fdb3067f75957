// Text helpers for reading NVRTC's outputs (its log, its timing report) line by line.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace evotune {

// `text` without leading and trailing blanks (spaces, tabs, carriage returns, newlines).
inline std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The lines of `text`, without their newlines; `separator` splits a line into cells the same way.
inline std::vector<std::string> split(const std::string& text, char separator = '\n') {
  std::vector<std::string> parts;
  std::istringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

}  // namespace evotune
