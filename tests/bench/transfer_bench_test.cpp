// The transfer benchmark on synthetic sweeps of the saxpy space at three problem sizes that share their best
// config: seeded from the other problems, evolve and anneal get there in fewer evaluations than cold; and the
// benchmark's refusals.
#include "bench/transfer_bench.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "replay/sweep_fixture.hpp"

namespace evotune {
namespace transfer_bench_test {

// Every valid config at N = n: the config BLOCK=128, ITEMS=2, VECTOR=0 takes 10 us, every other one 11 to 21
// us in an order that looks random and differs between problems.
RecordedSweep sweep_at(const SearchSpace& space, int n) {
  RecordedSweep sweep = replay_test::synthetic_sweep(space, [](std::size_t) { return 1.0; });
  sweep.problem = space.resolve_problem("N=" + std::to_string(n));
  sweep.results.clear();
  for (const Config& config : space.enumerate(sweep.problem, sweep.device)) {
    const bool best = config.at("BLOCK") == 128 && config.at("ITEMS") == 2 && config.at("VECTOR") == 0;
    const std::uint64_t h = fnv1a64(canonical_json(config), static_cast<std::uint64_t>(n));
    sweep.results.push_back(
        replay_test::ok_result(config, best ? 10.0 : 11.0 + static_cast<double>(h % 1000) / 100));
  }
  return sweep;
}

TEST(TransferBench, SeedingFromTheOtherProblemsReachesTheBestSooner) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/saxpy.json");
  const std::vector<RecordedSweep> sweeps{sweep_at(space, 4096), sweep_at(space, 8192),
                                          sweep_at(space, 16384)};
  TransferOptions options;
  options.seeds = 10;
  const auto rows = bench_transfer(space, sweeps, options);
  ASSERT_EQ(rows.size(), 3u * 2u);  // each problem, evolve and anneal
  for (const TransferRow& row : rows) {
    SCOPED_TRACE(key_value_text(row.problem) + " " + row.strategy);
    EXPECT_EQ(row.best_us, 10.0);
    EXPECT_GT(row.transferred, 0u);
    ASSERT_EQ(row.cold.size(), 3u);
    ASSERT_EQ(row.transfer.size(), 3u);
    const ThresholdStats& cold = row.cold[1];  // within 2%: the best itself
    const ThresholdStats& transfer = row.transfer[1];
    EXPECT_EQ(transfer.reached, options.seeds);
    ASSERT_TRUE(transfer.median.has_value());
    EXPECT_LE(*transfer.median, 16.0) << "the best config is among the first proposals";
    ASSERT_TRUE(cold.median.has_value());
    EXPECT_LT(*transfer.median, *cold.median);
  }
}

TEST(TransferBench, RefusesOneSweepTwoOfOneProblemAndAnUnknownStrategy) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/saxpy.json");
  const RecordedSweep a = sweep_at(space, 4096);
  const RecordedSweep b = sweep_at(space, 8192);
  EXPECT_THROW(bench_transfer(space, {a}, {}), Error);
  try {
    bench_transfer(space, {a, b, a}, {});
    FAIL() << "two sweeps of one problem were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two sweeps of the problem"), std::string::npos) << e.what();
  }
  TransferOptions unknown;
  unknown.strategies = {"simplex"};
  EXPECT_THROW(bench_transfer(space, {a, b}, unknown), Error);
  RecordedSweep other = b;
  other.space_name = "gemm";
  EXPECT_THROW(bench_transfer(space, {a, other}, {}), Error);
}

}  // namespace transfer_bench_test
}  // namespace evotune
