// What a tuning run is asked to do: the space, problem, strategy and budget, the database, the devices, how
// to measure, the rerank, and a recorded sweep standing in for the GPU. Plain data, read by every part of the
// run (session/tune_session.hpp runs it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/eval_settings.hpp"
#include "core/objective.hpp"

namespace evotune {

struct TuneOptions {
  std::filesystem::path space_file;
  std::string problem;  // "B=1,S=512" overrides; empty: the space's defaults
  // "NAME=V,...": the reference is the template at this config (its other values: Reference.Config's); only
  // for spaces whose reference is a config (T1 files); empty: the space's.
  std::string reference_config;
  std::string strategy = "exhaustive";
  std::optional<std::int64_t> budget;  // variants to evaluate in this run; default: the space's Budget
  std::uint64_t seed = 0;
  std::filesystem::path db_file = "results/evotune.db";
  std::string devices = "0";  // GPU ordinals, "0,1", or "all": one worker process each
  EvalSettings eval;          // eval.timeout_ms is the ceiling of the derived launch limit
  // What the strategy minimises; energy and edp need eval.measure_energy (NVML on the GPU's machine).
  Objective objective = Objective::time;
  int compile_threads = 0;  // 0: one per CPU core
  int patience = 0;         // learning strategies: generations without progress before stopping
  // > 0: no variant is proposed once this many seconds have passed since the run started (the GPU workers'
  // start and the baseline included); those compiling or running finish, then the rerank, which starts no
  // round past the limit after its first. 0: no limit.
  double time_limit_s = 0;
  // After a finished search, the rerank_top fastest configs re-timed in rerank_rounds interleaved rounds
  // (session/rerank.hpp); 0: no rerank.
  int rerank_top = 10;
  int rerank_rounds = 5;
  bool remeasure_only = false;  // no search: only the rerank of what is stored (evotune remeasure)
  // A recorded sweep answers instead of a GPU (no compiles): replay_workers workers, each answer after
  // replay_delay_ms.
  std::optional<std::filesystem::path> replay_file;
  double replay_delay_ms = 0;
  int replay_workers = 1;
  std::vector<std::string> worker_command;  // how to start a worker: {evotune binary, "worker"}
  std::string command_line;
};

}  // namespace evotune
