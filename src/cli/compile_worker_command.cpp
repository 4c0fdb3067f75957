// `evotune compile-worker`: a compiler process (started by tune and check, not by users): compile requests in
// on fd 3, results out on fd 4, one at a time until the input closes.
#include "cli/commands.hpp"
#include "session/child_processes.hpp"

namespace evotune::cli {

void add_compile_worker_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("compile-worker", "Compiler process of tune and check")->group("");  // hidden
  command->callback([] { run_compile_worker_process(); });
}

}  // namespace evotune::cli
