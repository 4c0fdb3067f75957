// The heartbeat thread and the claim settings.
#include "session/heartbeat.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>

#include "core/error.hpp"

namespace evotune {
namespace {

std::optional<double> positive_number(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value > 0))
    throw Error(std::string(variable) + "='" + text + "': expected a positive number");
  return value;
}

}  // namespace

ClaimPolicy claim_policy_from_environment() {
  ClaimPolicy policy;
  if (const auto lease = positive_number("EVOTUNE_CLAIM_LEASE_S")) policy.lease_s = *lease;
  if (const auto attempts = positive_number("EVOTUNE_CLAIM_ATTEMPTS"))
    policy.max_attempts = std::max(1, static_cast<int>(*attempts));
  // A run killed on this host leaves claims a rerun need not wait a lease for.
  policy.process_gone = [here = host_name()](const std::string& host, std::int64_t pid) {
    return host == here && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  };
  return policy;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

Heartbeat::Heartbeat(const std::string& location, std::int64_t run_id, double lease_s)
    : thread_([this, location, run_id, lease_s] { beat(location, run_id, std::max(0.25, lease_s / 4)); }) {}

Heartbeat::~Heartbeat() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Heartbeat::beat(const std::string& location, std::int64_t run_id, double interval_s) {
  std::optional<Store> store;
  const auto interval = std::chrono::duration<double>(interval_s);
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
    lock.unlock();
    try {
      if (!store) store.emplace(location);
      store->heartbeat(run_id);
    } catch (const Error& e) {
      // The connection may be gone (a server restart): the next beat opens a new one.
      spdlog::warn("heartbeat of run {}: {}", run_id, e.what());
      store.reset();
    }
    lock.lock();
  }
}

}  // namespace evotune
