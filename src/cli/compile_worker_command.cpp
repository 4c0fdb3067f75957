// `evotune compile-worker`: a compiler process (started by tune and check, not by users): compile requests in
// on fd 3, results out on fd 4, one at a time until the input closes.
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "compile/compile_wire.hpp"
#include "ipc/child_process.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune::cli {

void add_compile_worker_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("compile-worker", "Compiler process of tune and check")->group("");  // hidden
  command->callback([] {
    while (const auto request = read_frame(kChildJobFd)) {
      const Compiler compiler(request->at("include_dirs").get<std::vector<std::string>>());
      const std::string scratch_dir = request->value("scratch_dir", "");
      write_frame(kChildAnswerFd,
                  to_json(compiler.compile(compile_request_from_json(*request), scratch_dir)));
    }
  });
}

}  // namespace evotune::cli
