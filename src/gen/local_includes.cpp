// Quoted #includes of a template's own headers, replaced by their text.
#include "gen/local_includes.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace evotune {
namespace {

// The path of a `#include "path"` line (spaces allowed around `#` and `include`), or "" for any other line.
std::string quoted_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return {};
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || line[i] != '"') return {};
  const std::size_t close = line.find('"', i + 1);
  if (close == std::string::npos) return {};
  return line.substr(i + 1, close - i - 1);
}

bool is_pragma_once(const std::string& line) {
  std::string compact;
  for (const char c : line)
    if (c != ' ' && c != '\t' && c != '\r') compact += c;
  return compact.rfind("#pragmaonce", 0) == 0;
}

std::string expand(std::set<std::filesystem::path>& seen, const std::string& text,
                   const std::filesystem::path& folder, const std::string& name, int first_line, int depth) {
  if (depth > 32) throw std::runtime_error("local #include nested more than 32 deep (a cycle?) in " + name);
  std::string out;
  std::istringstream lines(text);
  std::string line;
  int number = first_line - 1;
  while (std::getline(lines, line)) {
    ++number;
    const std::string path = quoted_include(line);
    const std::filesystem::path file = (folder / path).lexically_normal();
    std::error_code error;
    if (path.empty() || !std::filesystem::is_regular_file(file, error)) {
      if (depth == 0 || !is_pragma_once(line))
        out += line + '\n';
      else
        out += "\n";  // keeps the line count
      continue;
    }
    if (!seen.insert(std::filesystem::weakly_canonical(file)).second) {
      out += "// " + line + "  (inlined above)\n";
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    out += "// " + line + "  (inlined by evotune)\n";
    out += "#line 1 \"" + path + "\"\n";
    std::string body = expand(seen, content.str(), file.parent_path(), path, 1, depth + 1);
    out += body;
    if (!body.empty() && body.back() != '\n') out += '\n';
    out += "#line " + std::to_string(number + 1) + " \"" + name + "\"\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

}  // namespace

std::string LocalIncludes::expand(const std::string& text, const std::string& file_name, int first_line) {
  return evotune::expand(seen_, text, folder_, file_name, first_line, 0);
}

}  // namespace evotune
