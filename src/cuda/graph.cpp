// Stream capture into a CUDA graph, its instantiation and its replay.
#include "cuda/graph.hpp"

namespace evotune::cuda {
namespace {

struct GraphTraits {
  static constexpr const char* name = "cuGraphDestroy";
  static CUresult release(CUgraph graph) { return driver().cuGraphDestroy(graph); }
};
using Graph = Owned<CUgraph, GraphTraits>;

// Ends a capture that `record` broke off: the stream leaves capture mode; whatever graph the driver still
// hands back is destroyed. The capture's own error (often CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) is moot.
void abandon_capture(CUstream stream) noexcept {
  CUgraph partial = nullptr;
  if (driver().cuStreamEndCapture(stream, &partial) == CUDA_SUCCESS && partial != nullptr)
    log_release_failure(driver().cuGraphDestroy(partial), GraphTraits::name);
}

}  // namespace

GraphExec GraphExec::capture(CUstream stream, const std::function<void()>& record) {
  const DriverApi& api = driver();
  check(api.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  try {
    record();
  } catch (...) {
    abandon_capture(stream);
    throw;
  }
  CUgraph captured = nullptr;
  check(api.cuStreamEndCapture(stream, &captured), "cuStreamEndCapture");
  const Graph graph(captured);
  CUgraphExec exec = nullptr;
  check(api.cuGraphInstantiateWithFlags(&exec, graph.get(), 0), "cuGraphInstantiateWithFlags");
  GraphExec instantiated;
  instantiated.exec_ = Owned<CUgraphExec, GraphExecTraits>(exec);
  return instantiated;
}

void GraphExec::launch(CUstream stream) const {
  check(driver().cuGraphLaunch(exec_.get(), stream), "cuGraphLaunch");
}

}  // namespace evotune::cuda
