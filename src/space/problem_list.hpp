// Several problems from text: ranges and lists on --problem, and problems files (--problems).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace evotune {

class SearchSpace;

// Expands ranges and lists into one override text per problem ("NAME=VALUE,..."), in order, the first
// size varying slowest; text without ranges or lists comes back as it is (trimmed). Items:
//   NAME=V           one value
//   NAME=A..B:xK     A, A*K, A*K*K, ... while <= B (K >= 2)
//   NAME=A..B:+K     A, A+K, A+2K, ... while <= B (K >= 1); NAME=A..B is A..B:+1
//   V or A..B:...    an item without '=' adds values to the item before it ("B=1,8": B is 1 or 8)
// Throws Error (one line) for a malformed item, a value list before any NAME=, an empty range, a size given
// twice, or more than 10000 problems. Names and values are checked later, by resolve_sizes.
std::vector<std::string> expand_problem_text(const std::string& text);

// The problems of a command's --problem (ranges and lists expanded) or, when `problems_file` is not empty,
// --problems FILE. Error when both are given.
std::vector<std::string> problem_list(const std::string& problem, const std::string& problems_file);

// A problems file: a JSON list (each entry an override text, which may hold ranges, or an object of sizes
// {"S": 512}), or else one override text per line (blank lines and lines starting with # are skipped).
// Throws Error naming the file when it cannot be read or holds no problem.
std::vector<std::string> read_problems_file(const std::filesystem::path& file);

// Each of `problems` resolved against `space`, in order, before any is used. A problem that does not resolve
// (an unknown size, a value out of range) throws its Error; where the problems came from a file
// (`problems_file` not empty) the one line names the file and the problem, as written there or expanded.
std::vector<Sizes> resolve_problems(const SearchSpace& space, const std::vector<std::string>& problems,
                                    const std::string& problems_file);

}  // namespace evotune
