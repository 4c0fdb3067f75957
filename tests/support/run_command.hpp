// Runs the evotune binary in tests and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace evotune::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The binary under test: $EVOTUNE_BINARY when set (a build carried to another machine), else the evotune
// built beside the test executable.
inline std::string evotune_binary() {
  const char* from_environment = std::getenv("EVOTUNE_BINARY");
  if (from_environment && *from_environment) return from_environment;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "evotune").string();
}

// `arguments` is appended to the binary's path as shell text.
inline CommandResult run_evotune(const std::string& arguments) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto err_file = dir / ("evotune_stderr_" + std::to_string(::getpid()) + ".txt");
  const std::string command = evotune_binary() + " " + arguments + " 2>" + err_file.string();
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  std::filesystem::remove(err_file);
  return result;
}

}  // namespace evotune::test
