// Running a command to completion with its output in files and a wall-clock limit.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace evotune {

struct CapturedRun {
  int wait_status = -1;    // as waitpid gives it (describe_exit reads it)
  bool timed_out = false;  // killed, with every process it started, when the limit passed
};

// Runs `command` (argv[0] a path, or a name looked up in PATH) in a process group of its own, its stdout
// written to `out` and its stderr to `err`, and waits at most `limit`. Throws Error when it cannot start.
CapturedRun run_captured(const std::vector<std::string>& command, const std::filesystem::path& out,
                         const std::filesystem::path& err, std::chrono::milliseconds limit);

}  // namespace evotune
