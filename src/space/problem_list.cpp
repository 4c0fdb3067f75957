// Expanding problem ranges and reading problems files.
#include "space/problem_list.hpp"

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "space/problem_items.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace {

constexpr std::size_t kMaxProblems = 10000;

std::int64_t integer(const std::string& text, const std::string& item) {
  std::int64_t value = 0;
  const std::string t = trim_blanks(text);
  const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || error != std::errc() || end != t.data() + t.size())
    throw ProblemError("malformed item '" + item + "' (expected NAME=V, NAME=A..B:xK or NAME=A..B:+K)");
  return value;
}

// The values of one item's right-hand side: V, A..B, A..B:xK or A..B:+K.
std::vector<std::int64_t> values_of(const std::string& spec, const std::string& item) {
  const auto dots = spec.find("..");
  if (dots == std::string::npos) return {integer(spec, item)};
  const auto colon = spec.find(':', dots);
  const std::int64_t first = integer(spec.substr(0, dots), item);
  const std::int64_t last =
      integer(spec.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2), item);
  bool geometric = false;
  std::int64_t step = 1;
  if (colon != std::string::npos) {
    const std::string rule = trim_blanks(spec.substr(colon + 1));
    if (rule.size() < 2 || (rule[0] != 'x' && rule[0] != '+'))
      throw ProblemError("malformed step in '" + item + "' (expected :xK or :+K)");
    geometric = rule[0] == 'x';
    step = integer(rule.substr(1), item);
    if (geometric ? step < 2 : step < 1)
      throw ProblemError("step of '" + item + "' must be " + (geometric ? "x2 or more" : "+1 or more"));
  }
  if (first > last)
    throw ProblemError("empty range '" + item + "' (" + std::to_string(first) + " > " + std::to_string(last) +
                       ")");
  if (geometric && first <= 0) throw ProblemError("a geometric range must start above 0: '" + item + "'");
  std::vector<std::int64_t> values;
  for (std::int64_t v = first; v <= last; v = geometric ? v * step : v + step) {
    values.push_back(v);
    if (values.size() > kMaxProblems) throw ProblemError("range '" + item + "' has too many values");
  }
  return values;
}

}  // namespace

std::vector<std::string> expand_problem_text(const std::string& text) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> sizes;
  bool varies = false;
  for (const std::string& item : comma_items(text)) {
    if (item.empty() && trim_blanks(text).empty()) break;
    const auto equals = item.find('=');
    std::string spec = item;
    if (equals != std::string::npos) {
      const std::string name = trim_blanks(item.substr(0, equals));
      for (const auto& size : sizes)
        if (size.first == name) throw ProblemError("size '" + name + "' given twice");
      sizes.push_back({name, {}});
      spec = item.substr(equals + 1);
    } else {
      if (sizes.empty())
        throw ProblemError("malformed item '" + item + "' (expected NAME=INTEGER, e.g. S=512)");
      varies = true;
    }
    const auto values = values_of(spec, item);
    varies = varies || values.size() > 1;
    auto& list = sizes.back().second;
    list.insert(list.end(), values.begin(), values.end());
  }
  if (!varies) return {trim_blanks(text)};
  std::size_t count = 1;
  for (const auto& size : sizes) {
    count *= size.second.size();
    if (count > kMaxProblems)
      throw ProblemError("'" + trim_blanks(text) + "' expands to more than " + std::to_string(kMaxProblems) +
                         " problems");
  }
  std::vector<std::string> problems;
  std::set<std::string> seen;
  for (std::size_t index = 0; index < count; ++index) {
    std::string problem;
    std::size_t rest = index;
    std::vector<std::string> items(sizes.size());
    for (std::size_t s = sizes.size(); s-- > 0;) {  // the last size varies fastest
      items[s] = sizes[s].first + "=" + std::to_string(sizes[s].second[rest % sizes[s].second.size()]);
      rest /= sizes[s].second.size();
    }
    for (const auto& item : items) problem += (problem.empty() ? "" : ",") + item;
    if (seen.insert(problem).second) problems.push_back(problem);
  }
  return problems;
}

std::vector<std::string> problem_list(const std::string& problem, const std::string& problems_file) {
  if (problems_file.empty()) return expand_problem_text(problem);
  if (!problem.empty()) throw Error("give --problem or --problems, not both");
  return read_problems_file(problems_file);
}

std::vector<std::string> read_problems_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error("problems file " + file.string() + ": cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::string> problems;
  auto add = [&](const std::string& entry) {
    for (auto& problem : expand_problem_text(entry)) problems.push_back(std::move(problem));
  };
  const auto first = text.find_first_not_of(" \t\r\n");
  try {
    if (first != std::string::npos && text[first] == '[') {
      const auto json = nlohmann::json::parse(text);
      for (const auto& entry : json) {
        if (entry.is_string()) {
          add(entry.get<std::string>());
        } else if (entry.is_object()) {
          std::string problem;
          for (const auto& [name, value] : entry.items()) {
            if (!value.is_number_integer()) throw Error("size '" + name + "' is not an integer");
            problem += (problem.empty() ? "" : ",") + name + "=" + std::to_string(value.get<std::int64_t>());
          }
          add(problem);
        } else {
          throw Error("each entry must be a problem text (\"S=512\") or an object of sizes ({\"S\": 512})");
        }
      }
    } else {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();  // a file with CRLF line ends
        line = trim_blanks(line);
        if (!line.empty() && line[0] != '#') add(line);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error("problems file " + file.string() + ": not valid JSON: " + e.what());
  } catch (const Error& e) {
    throw Error("problems file " + file.string() + ": " + e.what());
  }
  if (problems.empty()) throw Error("problems file " + file.string() + ": holds no problem");
  return problems;
}

std::vector<Sizes> resolve_problems(const SearchSpace& space, const std::vector<std::string>& problems,
                                    const std::string& problems_file) {
  std::vector<Sizes> resolved;
  for (const std::string& problem : problems) {
    try {
      resolved.push_back(space.resolve_problem(problem));
    } catch (const Error& e) {
      if (problems_file.empty()) throw;
      const auto* in_problem = dynamic_cast<const ProblemError*>(&e);  // its reason, without "problem: "
      throw Error("problems file " + problems_file + ", problem '" + problem +
                  "': " + (in_problem ? in_problem->reason() : std::string(e.what())));
    }
  }
  return resolved;
}

}  // namespace evotune
