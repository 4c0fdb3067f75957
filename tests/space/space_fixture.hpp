// Test helper: writes edited copies of tests/data/spaces/saxpy.json into a private temporary folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace evotune::testing {

inline const std::filesystem::path kSpaces = "tests/data/spaces";

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
    std::ifstream in(kSpaces / "saxpy.json");
    auto json = nlohmann::ordered_json::parse(in);
    json["KernelSpecification"]["KernelFile"] = std::filesystem::absolute(kSpaces / "saxpy.cu").string();
    json["Reference"]["KernelFile"] = std::filesystem::absolute(kSpaces / "saxpy_ref.cu").string();
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

}  // namespace evotune::testing
