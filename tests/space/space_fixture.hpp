// Test helpers: edited copies of tests/data/spaces/saxpy.json (or another space there) in a private temporary
// folder, and the error a space file fails to load with.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "space/search_space.hpp"

namespace evotune::testing {

inline const std::filesystem::path kSpaces = "tests/data/spaces";

// The one line loading `file` fails with, or "no error".
inline std::string load_error(const std::filesystem::path& file) {
  try {
    SearchSpace::load(file);
  } catch (const SpaceError& error) {
    return error.what();
  }
  return "no error";
}

class TempSpaces {
 public:
  TempSpaces() {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("evotune_space_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  ~TempSpaces() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TempSpaces(const TempSpaces&) = delete;
  TempSpaces& operator=(const TempSpaces&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  // saxpy.json with `edit` applied; kernel files point at the originals unless `edit` changes them.
  std::filesystem::path write(const std::function<void(nlohmann::ordered_json&)>& edit,
                              const std::string& name = "space.json") const {
    return write_from("saxpy", edit, name);
  }

  // kSpaces / `base`.json (its template `base`.cu, its reference `base`_ref.cu) with `edit` applied, the same
  // way.
  std::filesystem::path write_from(const std::string& base,
                                   const std::function<void(nlohmann::ordered_json&)>& edit,
                                   const std::string& name = "space.json") const {
    std::ifstream in(kSpaces / (base + ".json"));
    auto json = nlohmann::ordered_json::parse(in);
    json["KernelSpecification"]["KernelFile"] = std::filesystem::absolute(kSpaces / (base + ".cu")).string();
    json["Reference"]["KernelFile"] = std::filesystem::absolute(kSpaces / (base + "_ref.cu")).string();
    edit(json);
    return write_text(name, json.dump(2));
  }

  std::filesystem::path write_text(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

 private:
  std::filesystem::path dir_;
};

// The row_sum space (three launches: row_sum If SPLITS == 1, row_sum_part, row_sum_combine) with
// `programmatic` set on the entries it names (and `condition`, where given, as their ProgrammaticIf), loaded
// from a copy in `spaces`.
inline SearchSpace row_sum_with_programmatic(
    const TempSpaces& spaces, const std::vector<std::pair<int, nlohmann::ordered_json>>& programmatic,
    const std::string& condition = "") {
  return SearchSpace::load(spaces.write_from("row_sum", [&](auto& json) {
    for (const auto& [entry, value] : programmatic) {
      auto& launch = json["KernelSpecification"]["Launches"][entry];
      launch["Programmatic"] = value;
      if (!condition.empty()) launch["ProgrammaticIf"] = condition;
    }
  }));
}

}  // namespace evotune::testing
