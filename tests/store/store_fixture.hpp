// Test helpers for the store: a unique temporary folder, a database on either backend, a Store with one
// space/problem/device/run, outcomes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "core/outcome.hpp"
#include "store/postgres.hpp"
#include "store/store.hpp"

namespace evotune::store_test {

// A fresh folder under the system temp dir, removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir() {
    std::random_device entropy;
    const auto tag = (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
    path_ = std::filesystem::temp_directory_path() / ("evotune-store-test-" + std::to_string(tag));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path file(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The URL of database `name` on the throwaway server of scripts/pg_local.sh in `server_dir`.
inline std::string postgres_url(const std::string& server_dir, const std::string& name) {
  return "postgresql:///" + name + "?host=" + server_dir + "&user=evotune";
}

// The database a store test runs against: a SQLite file in its temp folder or, where EVOTUNE_TEST_PG_DIR
// names the folder of a throwaway PostgreSQL server (the ctest fixture `postgres`), a fresh database on it,
// dropped at the end. skip_reason() is set when that server could not be started.
class TestDatabase {
 public:
  explicit TestDatabase(const TempDir& dir) : location_(dir.file("evotune.db").string()) {
    const char* server = std::getenv("EVOTUNE_TEST_PG_DIR");
    if (!server || !*server) return;
    server_ = server;
    if (std::filesystem::exists(server_ + "/unavailable")) {
      skip_reason_ = "no PostgreSQL server: " + read_all(server_ + "/unavailable");
      server_.clear();
      return;
    }
    std::random_device entropy;
    std::ostringstream name;
    name << "evotune_test_" << std::hex << entropy() << entropy();
    name_ = name.str();
    postgres::Connection(postgres_url(server_, "evotune")).exec("CREATE DATABASE " + name_);
    location_ = postgres_url(server_, name_);
  }
  ~TestDatabase() {
    if (name_.empty()) return;
    try {
      postgres::Connection(postgres_url(server_, "evotune")).exec("DROP DATABASE " + name_ + " WITH (FORCE)");
    } catch (const std::exception&) {  // the server is going: its folder goes with it
    }
  }
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& location() const { return location_; }
  const std::string& skip_reason() const { return skip_reason_; }
  bool postgres() const { return !name_.empty(); }

 private:
  static std::string read_all(const std::string& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  std::string location_, server_, name_, skip_reason_;
};

inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

inline DeviceInfo test_device(const std::string& name = "NVIDIA H100 80GB HBM3") {
  DeviceInfo device;
  device.name = name;
  device.cc_major = 9;
  device.cc_minor = 0;
  device.driver_version = 13000;
  device.sm_count = 132;
  device.l2_bytes = 50LL << 20;
  device.max_smem_per_block = 227 * 1024;
  return device;
}

inline Outcome ok_outcome(double median_us) {
  Outcome outcome;
  outcome.status = Status::ok;
  outcome.timing =
      TimingStats{median_us, median_us * 0.9, median_us * 1.05, 0.5, median_us * 0.95, median_us * 1.1, 50};
  outcome.error = ErrorStats{1e-3, 2e-4, 0, 4096};
  outcome.validation_seed = 42;
  outcome.compile.compile_ms = 120.5;
  outcome.validate_ms = 3.25;
  outcome.bench_ms = 40.0;
  return outcome;
}

// The compile figures of a 16-compiler sweep of the attention space.
inline CompileStats sweep_compile_stats() {
  return {.compilers = 16,
          .compiles = 1968,
          .busy_ms = 2400e3,
          .idle_ms = 100e3,
          .queue_wait_ms = 12.5e3,
          .queue_mean = 0.375,
          .queue_max = 16,
          .per_compiler = {}};
}

inline Outcome failed_outcome(Status status, const std::string& message) {
  Outcome outcome;
  outcome.status = status;
  outcome.message = message;
  return outcome;
}

// A Store (SQLite in a temp folder, or PostgreSQL: TestDatabase) with one space, problem, device and
// running run.
class StoreTest : public ::testing::Test {
 protected:
  StoreTest()
      : database(dir),
        store(database.location()),
        space_id(store.upsert_space("attention", "search_spaces/attention.json", "hash-v1", "{}")),
        problem_id(store.upsert_problem({{"B", 1}, {"H", 8}, {"S", 512}})),
        device_id(store.upsert_device(test_device(), "12.8")),
        run_id(store.begin_run({space_id, problem_id, device_id, "random", 7, 100, "evotune tune"})) {}

  std::int64_t config(std::int64_t block_m, std::int64_t block_n = 32) {
    return store.upsert_config(space_id, {{"BLOCK_M", block_m}, {"BLOCK_N", block_n}});
  }
  void measure(std::int64_t config_id, const Outcome& outcome,
               std::optional<std::int64_t> device = std::nullopt,
               std::optional<std::int64_t> compile_id = std::nullopt) {
    store.record_measurement({run_id, config_id, problem_id, device.value_or(device_id), compile_id, outcome,
                              outcome.timing ? 100.0 : 0.0, outcome.timing ? 900.0 : 0.0});
  }

  void SetUp() override {
    if (!database.skip_reason().empty()) GTEST_SKIP() << database.skip_reason();
  }

  TempDir dir;
  TestDatabase database;
  Store store;
  std::int64_t space_id, problem_id, device_id, run_id;
};

}  // namespace evotune::store_test
