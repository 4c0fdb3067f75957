// Store: claims on configs, so that several processes or hosts sharing one database split the work, and
// take over what a dead one was evaluating.
#include <string>

#include "core/error.hpp"
#include "store/dialect.hpp"
#include "store/store.hpp"

namespace evotune {
namespace {

std::string abandoned_reason(std::int64_t attempts) {
  return "given up: " + std::to_string(attempts) +
         " runs that claimed this config stopped sending heartbeats while evaluating it (it may kill its "
         "host)";
}

}  // namespace

ClaimResult Store::claim(const ClaimKey& key, std::int64_t run_id, const ClaimPolicy& policy) {
  const std::string now = dialect::now(db_->backend());
  // Another process may change the claim between our reads: each step re-checks, and a takeover is a
  // compare-and-set on (run, attempts).
  for (int round = 0; round < 8; ++round) {
    sql::Transaction transaction(*db_);
    sql::Statement measured(*db_, R"(
        SELECT count(*) FROM measurements WHERE config_id = ?1 AND problem_id = ?2 AND device_id = ?3)");
    measured.bind_int(1, key.config_id).bind_int(2, key.problem_id).bind_int(3, key.device_id);
    measured.step();
    if (measured.int64(0) > 0) return ClaimResult::measured;

    sql::Statement insert(*db_, R"(
        INSERT INTO claims (config_id, problem_id, device_id, run_id, claimed_at, attempts)
        VALUES (?1, ?2, ?3, ?4, )" + now +
                                    R"(, 1)
        ON CONFLICT (config_id, problem_id, device_id) DO NOTHING)");
    insert.bind_int(1, key.config_id).bind_int(2, key.problem_id).bind_int(3, key.device_id);
    insert.bind_int(4, run_id).run();
    if (db_->changes() == 1) {
      // On PostgreSQL the insert may have waited for a run that stored the result and dropped its claim:
      // the count above predates that commit, a second look sees it (then the claim is rolled back).
      measured.reset();
      measured.step();
      if (measured.int64(0) > 0) return ClaimResult::measured;
      transaction.commit();
      return ClaimResult::claimed;
    }

    // The holder lives while its run is running and its heartbeat is younger than the lease.
    sql::Statement holder(*db_, R"(
        SELECT c.run_id, c.attempts, r.host, r.pid,
               CASE WHEN r.status = 'running' AND r.heartbeat_at IS NOT NULL
                         AND NOT )" +
                                    dialect::older_than(db_->backend(), "r.heartbeat_at", "?4") + R"(
                    THEN 1 ELSE 0 END
        FROM claims c LEFT JOIN runs r ON r.id = c.run_id
        WHERE c.config_id = ?1 AND c.problem_id = ?2 AND c.device_id = ?3)");
    holder.bind_int(1, key.config_id).bind_int(2, key.problem_id).bind_int(3, key.device_id);
    holder.bind_real(4, policy.lease_s);
    if (!holder.step()) continue;  // released in between: look again
    const std::int64_t holder_run = holder.int64(0), attempts = holder.int64(1);
    const bool gone =
        policy.process_gone && !holder.is_null(3) && policy.process_gone(holder.text(2), holder.int64(3));
    const bool alive = holder.int64(4) != 0 && !gone;
    if (holder_run == run_id) return ClaimResult::claimed;
    if (alive) return ClaimResult::held;

    if (attempts >= policy.max_attempts) {
      transaction.commit();
      Outcome outcome;
      outcome.status = Status::timeout;
      outcome.message = abandoned_reason(attempts);
      // Stores the result and drops the claim in one transaction.
      record_measurement({run_id, key.config_id, key.problem_id, key.device_id, std::nullopt, outcome, 0, 0});
      return ClaimResult::abandoned;
    }
    sql::Statement take(*db_, R"(
        UPDATE claims SET run_id = ?4, claimed_at = )" +
                                  now + R"(, attempts = attempts + 1
        WHERE config_id = ?1 AND problem_id = ?2 AND device_id = ?3 AND run_id = ?5 AND attempts = ?6)");
    take.bind_int(1, key.config_id).bind_int(2, key.problem_id).bind_int(3, key.device_id);
    take.bind_int(4, run_id).bind_int(5, holder_run).bind_int(6, attempts).run();
    if (db_->changes() == 1) {
      transaction.commit();
      return ClaimResult::claimed;
    }
  }
  throw Error(db_->name() + ": claim of config " + std::to_string(key.config_id) +
              " kept changing under this run");
}

void Store::heartbeat(std::int64_t run_id) {
  sql::Statement update(*db_,
                        "UPDATE runs SET heartbeat_at = " + dialect::now(db_->backend()) + " WHERE id = ?1");
  update.bind_int(1, run_id).run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::release_claims(std::int64_t run_id) {
  sql::Statement release(*db_, "DELETE FROM claims WHERE run_id = ?1");
  release.bind_int(1, run_id).run();
}

std::int64_t Store::count_claims() const {
  sql::Statement select(*db_, "SELECT count(*) FROM claims");
  select.step();
  return select.int64(0);
}

}  // namespace evotune
