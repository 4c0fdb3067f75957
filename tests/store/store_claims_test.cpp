// Claims: runs sharing a database split the configs, take over a dead run's, and give up on a config that
// kills every run that claims it. Runs on SQLite and, with the postgres fixture, on PostgreSQL.
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace store_claims_test {

using store_test::ok_outcome;

class StoreClaims : public store_test::StoreTest {
 protected:
  std::int64_t other_run() {
    return store.begin_run(
        {space_id, problem_id, device_id, "random", 8, 100, "evotune tune", "", "host-b", 42});
  }
  ClaimKey key(std::int64_t config_id) const { return {config_id, problem_id, device_id}; }

  const ClaimPolicy live{60, 3};
  const ClaimPolicy expired{-1, 3};  // every heartbeat is older than a negative lease
};

TEST_F(StoreClaims, ALiveRunsClaimIsHeldAndAResultEndsIt) {
  const auto config_id = config(64);
  const auto other = other_run();
  EXPECT_EQ(store.claim(key(config_id), run_id, live), ClaimResult::claimed);
  EXPECT_EQ(store.claim(key(config_id), run_id, live), ClaimResult::claimed);  // its own, again
  EXPECT_EQ(store.claim(key(config_id), other, live), ClaimResult::held);
  EXPECT_EQ(store.count_claims(), 1);
  measure(config_id, ok_outcome(5.0));
  EXPECT_EQ(store.count_claims(), 0);  // removed with the result, in its transaction
  EXPECT_EQ(store.claim(key(config_id), other, live), ClaimResult::measured);
  ASSERT_TRUE(store.measurement_of(key(config_id)));
  EXPECT_DOUBLE_EQ(store.measurement_of(key(config_id))->timing->median_us, 5.0);
}

TEST_F(StoreClaims, ADeadRunsClaimIsTakenOverThenGivenUpAsATimeout) {
  const auto config_id = config(64);
  EXPECT_EQ(store.claim(key(config_id), run_id, live), ClaimResult::claimed);
  EXPECT_EQ(store.claim(key(config_id), other_run(), expired), ClaimResult::claimed);  // attempt 2
  EXPECT_EQ(store.claim(key(config_id), other_run(), expired), ClaimResult::claimed);  // attempt 3
  EXPECT_EQ(store.claim(key(config_id), other_run(), expired), ClaimResult::abandoned);
  EXPECT_EQ(store.count_claims(), 0);
  const auto stored = store.measurement_of(key(config_id));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, Status::timeout);
  EXPECT_NE(stored->message.find("3 runs"), std::string::npos) << stored->message;
}

// A run killed on this host (its pid gone) need not wait for the lease: a rerun takes its claims at once.
TEST_F(StoreClaims, AGoneProcesssClaimIsTakenOverWithinTheLease) {
  const auto config_id = config(64);
  EXPECT_EQ(store.claim(key(config_id), other_run(), live), ClaimResult::claimed);
  ClaimPolicy gone = live;
  gone.process_gone = [](const std::string& host, std::int64_t pid) { return host == "host-b" && pid == 42; };
  EXPECT_EQ(store.claim(key(config_id), run_id, gone), ClaimResult::claimed);
}

TEST_F(StoreClaims, AFinishedRunsClaimsAreReleasedAndItsHeartbeatAndHostAreListed) {
  const auto other = other_run();
  EXPECT_EQ(store.claim(key(config(64)), other, live), ClaimResult::claimed);
  EXPECT_EQ(store.claim(key(config(32)), other, live), ClaimResult::claimed);
  store.heartbeat(other);
  store.release_claims(other);
  EXPECT_EQ(store.count_claims(), 0);
  const auto runs = store.runs(1);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].host, "host-b");
  EXPECT_EQ(runs[0].pid, 42);
  EXPECT_EQ(runs[0].heartbeat_at.size(), 24u) << runs[0].heartbeat_at;  // 2026-11-25T22:35:00.123Z
}

}  // namespace store_claims_test
}  // namespace evotune
