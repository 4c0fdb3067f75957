// `evotune worker`: the process `evotune tune` starts for each GPU (not for users): jobs in on fd 3,
// answers out on fd 4.
#include <csignal>

#include "cli/commands.hpp"
#include "session/child_processes.hpp"

namespace evotune::cli {

void add_worker_command(CLI::App& app) {
  auto* command = app.add_subcommand("worker", "GPU worker process of evotune tune")->group("");  // hidden
  command->callback([] {
    // Ctrl-C reaches the whole process group: the tuning process decides when a worker ends.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    const int code = run_gpu_worker();
    if (code != 0) throw ExitCode{code};
  });
}

}  // namespace evotune::cli
