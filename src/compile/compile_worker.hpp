// The compiler process's side of the compile service: requests in, results out, one at a time.
#pragma once

namespace evotune {

// Answers compile requests (each with the include dirs the service adds) on the pipes a CompileService
// gives its compiler processes, until the input closes. Throws Error on a broken pipe or a malformed request.
void run_compile_worker();

}  // namespace evotune
