// A compiler process: reads a request, compiles it with NVRTC, writes the result; until its input closes.
#include "compile/compile_worker.hpp"

#include "compile/compile_wire.hpp"
#include "core/json_fields.hpp"
#include "ipc/child_process.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune {

void run_compile_worker() {
  while (auto request = read_frame(kChildJobFd)) {
    const Fields fields(*request, "", "compile request");
    const Compiler compiler(fields.texts("include_dirs"));
    const std::string scratch_dir = fields.has("scratch_dir") ? fields.text("scratch_dir") : "";
    // The service's additions to the request.
    request->erase("include_dirs");
    request->erase("scratch_dir");
    write_frame(kChildAnswerFd, to_json(compiler.compile(compile_request_from_json(*request), scratch_dir)));
  }
}

}  // namespace evotune
