// Thread-block clusters on a GPU, through `evotune eval`: the cluster_copy kernel traps unless it runs in
// clusters of CLUSTER blocks, so ok at 1, 2, 4 and 8 says the engine launched them; 16 (beyond the portable
// 8) is a resource_error with its reason; blocks of 100 KB of dynamic shared memory in clusters of 2 fit.
// Skips below compute capability 9.0, which has no clusters.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "eval/device_query.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace cluster_launch_test {

nlohmann::json eval_cluster(int cluster, int smem_kb = 0) {
  const auto result = test::run_evotune(
      "eval tests/data/spaces/cluster_copy.cu --space tests/data/spaces/cluster_copy.json --json --problem "
      "N=100000 --params CLUSTER=" +
      std::to_string(cluster) + ",BLOCK=128,SMEM_KB=" + std::to_string(smem_kb));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(ClusterLaunch, EveryPortableSizeRunsInItsClustersAndSixteenIsRefused) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const DeviceInfo device = query_gpu(0);
  if (device.cc_major < 9) GTEST_SKIP() << device.name << " has no thread-block clusters (needs 9.0)";
  for (int cluster : {1, 2, 4, 8}) {
    const auto json = eval_cluster(cluster);
    EXPECT_EQ(json.at("status"), "ok") << cluster << ": " << json.dump(2);
  }
  // Over the 48 KB default of dynamic shared memory: placeable once the kernel has opted in to it.
  const auto large = eval_cluster(2, 100);
  EXPECT_EQ(large.at("status"), "ok") << large.dump(2);
  const auto refused = eval_cluster(16);
  EXPECT_EQ(refused.at("status"), "resource_error") << refused.dump(2);
  EXPECT_NE(refused.at("message").get<std::string>().find("more than the portable 8"), std::string::npos)
      << refused.dump(2);
}

}  // namespace cluster_launch_test
}  // namespace evotune
