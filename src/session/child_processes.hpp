// The processes a tuning or checking run starts from this same binary (the hidden `worker` and
// `compile-worker` subcommands): their main loops, and how to start a compiler process.
#pragma once

#include <string>
#include <vector>

namespace evotune {

// `evotune worker`: the worker protocol on the pipes its WorkerPool gave it. Returns the exit code.
int run_gpu_worker();

// `evotune compile-worker`: compile requests on the pipes its CompileService gave it, until they close.
void run_compile_worker_process();

// The command that starts a compiler process from `executable` (empty: compile in threads of this
// process, as EVOTUNE_COMPILE_IN_PROCESS asks).
std::vector<std::string> compile_worker_command(const std::string& executable);

}  // namespace evotune
