// `evotune check`: load a space, enumerate its valid configs for an architecture, compile every one. No GPU
// needed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/status.hpp"
#include "store/store.hpp"

namespace evotune {

struct CheckFailure {
  Config config;  // empty for the reference kernel
  Status status;
  std::string message;
};

// A config that compiled but spills registers to local memory (ptxas's spill stores).
struct CheckSpill {
  Config config;
  int spill_store_bytes = 0;
};

// A config whose wgmmas ptxas serialised (C7514), with its reason (compile/ptxas_log.hpp).
struct CheckSerialized {
  Config config;
  std::string reason;
};

struct CheckReport {
  std::string space_name;
  std::string arch;
  std::string problem;
  std::uint64_t total_configs = 0;  // before constraints
  std::int64_t valid_configs = 0;
  std::int64_t sampled_configs = 0;  // of the valid ones, those compiled (all unless a sample was asked for)
  std::int64_t compiled = 0;
  int max_registers = 0;
  int max_spill_bytes = 0;
  double compile_seconds = 0;  // wall time of all compiles
  std::vector<CheckFailure> failures;
  std::vector<CheckSpill> spills;                 // in the order of the configs
  std::vector<CheckSerialized> serialized_wgmma;  // in the order of the configs
};

// Compiles the reference and every valid variant for `arch` ("sm_90"; the space's ArchSuffix is added) with
// `threads` compiles at a time; with `sample` > 0, only sample_configs(valid, sample). Throws
// Error/SpaceError for a bad space file or arch. With a store, compiles are looked up in and added to its
// compile cache, which GPU hosts sharing the database then find (they only evaluate).
CheckReport check_space(const std::filesystem::path& space_file, const std::string& problem,
                        const std::string& arch, int threads, std::size_t sample,
                        const std::vector<std::string>& compile_command = {}, Store* store = nullptr);

}  // namespace evotune
