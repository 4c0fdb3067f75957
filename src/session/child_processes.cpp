// The hidden subcommands' entry points, so the command line needs neither the worker nor the compile module.
#include "session/child_processes.hpp"

#include "compile/compile_service.hpp"
#include "compile/compile_worker.hpp"
#include "worker/worker_process.hpp"

namespace evotune {

int run_gpu_worker() { return run_pool_worker(); }

void run_compile_worker_process() { run_compile_worker(); }

std::vector<std::string> compile_worker_command(const std::string& executable) {
  return CompileService::child_command_for(executable);
}

}  // namespace evotune
