// CUDA graphs: the launches made on a stream captured into an executable graph, replayed as one launch.
#pragma once

#include <cuda.h>

#include <functional>

#include "cuda/resources.hpp"

namespace evotune::cuda {

struct GraphExecTraits {
  static constexpr const char* name = "cuGraphExecDestroy";
  static CUresult release(CUgraphExec graph) { return driver().cuGraphExecDestroy(graph); }
};

// An instantiated graph in the current context.
class GraphExec {
 public:
  GraphExec() = default;
  // Captures what `record` enqueues on `stream` (cuStreamBeginCapture, thread-local mode, then
  // cuStreamEndCapture) and instantiates it; the captured graph itself is destroyed once instantiated.
  // Throws CudaError from the first call that fails, `record`'s own included; the stream has left capture
  // mode either way.
  static GraphExec capture(CUstream stream, const std::function<void()>& record);
  void launch(CUstream stream) const;  // cuGraphLaunch; throws CudaError

 private:
  Owned<CUgraphExec, GraphExecTraits> exec_;
};

}  // namespace evotune::cuda
