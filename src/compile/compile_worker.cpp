// A compiler process: reads a request, compiles it with NVRTC, writes the result; until its input closes.
#include "compile/compile_worker.hpp"

#include "compile/compile_wire.hpp"
#include "core/json_fields.hpp"
#include "ipc/child_process.hpp"
#include "ipc/frame_pipe.hpp"

namespace evotune {

void run_compile_worker() {
  while (auto request = read_frame(kChildJobFd)) {
    const Compiler compiler(Fields(*request, "", "compile request").texts("include_dirs"));
    request->erase("include_dirs");  // the service's addition to the request
    write_frame(kChildAnswerFd, to_json(compiler.compile(compile_request_from_json(*request))));
  }
}

}  // namespace evotune
