// y = x, launched in thread-block clusters of CLUSTER blocks along X: each block checks the cluster it runs
// in
// (%cluster_nctarank == CLUSTER, %cluster_ctarank == blockIdx.x % CLUSTER) and traps otherwise, so a launch
// without the cluster attribute, or with another one, fails. The cluster-launch test template.
#ifndef CLUSTER
static_assert(false, "CLUSTER must be #defined");
#endif
#ifndef BLOCK
static_assert(false, "BLOCK must be #defined");
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) cluster_copy(const float* x, float* y, int n) {
  unsigned rank;
  unsigned blocks;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks));
  if (blocks != CLUSTER || rank != blockIdx.x % CLUSTER) __trap();
  const long long i = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
  if (i < n) y[i] = x[i];
}
