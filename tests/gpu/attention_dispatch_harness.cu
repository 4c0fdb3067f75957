// Runs an exported dispatcher of the wgmma attention space (export --dispatch; built with: nvcc
// -DEXPORTED='"file.cu"' -DDISPATCH=<space>_dispatch -DPICK=<space>_pick -DERROR_STRING=<space>_error_string;
// buffers Q, K, V, O, LSE and sizes B, H, HKV, S, SKV, D, CAUSAL, here HKV = H and SKV = S) on random inputs
// and checks O and the rows' log-sum-exps LSE against a float64 CPU computation, once directly and once
// replayed from a CUDA graph. Usage: harness B H S D CAUSAL. Exit 0 when within tolerance; 3 with the
// dispatcher's message when it refuses.
#include EXPORTED

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../support/attention_reference.hpp"

#define CHECK(call)                                                   \
  do {                                                                \
    cudaError_t e = (call);                                           \
    if (e != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); \
      return 2;                                                       \
    }                                                                 \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s B H S D CAUSAL\n", argv[0]);
    return 2;
  }
  const int B = std::atoi(argv[1]), H = std::atoi(argv[2]), S = std::atoi(argv[3]), Dim = std::atoi(argv[4]);
  const bool causal = std::atoi(argv[5]) != 0;
  const size_t n = size_t(B) * H * S * Dim;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<half> q(n), k(n), v(n), o(n);
  for (size_t i = 0; i < n; ++i) {
    q[i] = __float2half(uniform(rng));
    k[i] = __float2half(uniform(rng));
    v[i] = __float2half(uniform(rng));
  }
  const size_t rows = size_t(B) * H * S;
  std::vector<float> lse(rows);
  half *dq, *dk, *dv, *dout;
  float* dlse;
  CHECK(cudaMalloc(&dq, n * sizeof(half)));
  CHECK(cudaMalloc(&dk, n * sizeof(half)));
  CHECK(cudaMalloc(&dv, n * sizeof(half)));
  CHECK(cudaMalloc(&dout, n * sizeof(half)));
  CHECK(cudaMalloc(&dlse, rows * sizeof(float)));
  CHECK(cudaMemcpy(dq, q.data(), n * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), n * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v.data(), n * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0xff, n * sizeof(half)));  // NaN: unwritten elements fail
  CHECK(cudaMemset(dlse, 0xff, rows * sizeof(float)));
  int rule = -1;
  const int variant = PICK(B, H, H, S, S, Dim, causal, &rule);
  const int status = DISPATCH(dq, dk, dv, dout, dlse, B, H, H, S, S, Dim, causal, nullptr, 0, 0);
  if (status < 0) {
    std::printf("refused: %s\n", ERROR_STRING(status));
    return 3;
  }
  if (status != 0) {
    std::fprintf(stderr, "dispatch: %s\n", ERROR_STRING(status));
    return 2;
  }
  CHECK(cudaDeviceSynchronize());
  // The same call captured into a CUDA graph (its shared-memory attribute already set) and replayed.
  CHECK(cudaMemset(dout, 0xff, n * sizeof(half)));
  CHECK(cudaMemset(dlse, 0xff, rows * sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const int captured = DISPATCH(dq, dk, dv, dout, dlse, B, H, H, S, S, Dim, causal, nullptr, 0, stream);
  CHECK(cudaStreamEndCapture(stream, &graph));
  if (captured != 0) {
    std::fprintf(stderr, "dispatch under capture: %s\n", ERROR_STRING(captured));
    return 2;
  }
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("variant %d (rule %d) ", variant, rule);
  CHECK(cudaMemcpy(o.data(), dout, n * sizeof(half), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(lse.data(), dlse, rows * sizeof(float), cudaMemcpyDeviceToHost));

  const auto doubles = [](const std::vector<half>& values) {
    std::vector<double> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) out[i] = double(__half2float(values[i]));
    return out;
  };
  const evotune::test::AttentionOutputs expected = evotune::test::attention_forward_float64(
      doubles(q), doubles(k), doubles(v), {B, H, H, S, S, Dim, causal});
  const evotune::test::AttentionError error = evotune::test::attention_error(doubles(o), expected.o);
  const evotune::test::AttentionError lse_error =
      evotune::test::attention_error(std::vector<double>(lse.begin(), lse.end()), expected.lse);
  std::printf(
      "exported kernel vs float64 CPU: O max_abs %.3g, rel_l2 %.3g, non-finite %lld of %zu; LSE max_abs "
      "%.3g, non-finite %lld of %zu\n",
      error.max_abs, error.rel_l2, error.non_finite, n, lse_error.max_abs, lse_error.non_finite, rows);
  return (error.non_finite == 0 && error.max_abs <= 2e-2 && error.rel_l2 <= 1e-2 &&
          lse_error.non_finite == 0 && lse_error.max_abs <= 2e-2)
             ? 0
             : 1;
}
