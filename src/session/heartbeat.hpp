// Heartbeat: a thread that tells the database, on its own connection, that a tuning run is alive, so
// that other processes sharing the database leave its claims alone; and the claim settings from the
// environment.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "store/store.hpp"

namespace evotune {

// The lease from EVOTUNE_CLAIM_LEASE_S (seconds, default 60) and the runs a config may kill from
// EVOTUNE_CLAIM_ATTEMPTS (default 3); a run of this host whose process is gone is dead at once. Error for
// a value that is not a positive number.
ClaimPolicy claim_policy_from_environment();

// This host's name (gethostname) and process id, for the runs table.
std::string host_name();

class Heartbeat {
 public:
  // Beats every lease/4 seconds (at least every 0.25 s) until destroyed; the first beat is begin_run's.
  // Opens its own connection to `location`. A failing beat is logged, never thrown.
  Heartbeat(const std::string& location, std::int64_t run_id, double lease_s);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  void beat(const std::string& location, std::int64_t run_id, double interval_s);

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace evotune
