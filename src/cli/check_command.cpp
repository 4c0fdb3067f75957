// `evotune check SPACE --arch sm_XY`: validates the file and compiles every valid variant. Needs no GPU.
#include <cstdio>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "session/child_processes.hpp"
#include "store/store.hpp"
#include "tools/check_space.hpp"

namespace evotune::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> spaces;
  std::vector<std::string> archs{"sm_90"};
  std::string problem;
  int threads = 0;
  std::size_t sample = 0;
  std::string db;                    // "": no compile cache
  bool no_serialized_wgmma = false;  // a variant whose wgmmas ptxas serialised fails the check
};

void run(const CheckOptions& options) {
  const int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  int failed_checks = 0;
  std::optional<Store> store;
  if (!options.db.empty()) store.emplace(options.db);
  for (const auto& space : options.spaces) {
    for (const auto& arch : options.archs) {
      const CheckReport report = check_space(space, options.problem, arch, threads, options.sample,
                                             compile_worker_command(self_path()), store ? &*store : nullptr);
      std::printf(
          "%s [%s, %s]: %lld of %llu configs valid, %lld of them checked, %lld compiled, %zu failed (max %d "
          "registers, max %d spill bytes, %.1f s)\n",
          report.space_name.c_str(), report.arch.c_str(), report.problem.c_str(),
          static_cast<long long>(report.valid_configs), static_cast<unsigned long long>(report.total_configs),
          static_cast<long long>(report.sampled_configs), static_cast<long long>(report.compiled),
          report.failures.size(), report.max_registers, report.max_spill_bytes, report.compile_seconds);
      for (const auto& failure : report.failures)
        std::printf("  %s %s: %s\n", std::string(to_string(failure.status)).c_str(),
                    failure.config.empty() ? "reference" : canonical_json(failure.config).c_str(),
                    failure.message.c_str());
      // Spills are no failure (the variant runs), but a space's conditions usually mean to exclude them.
      for (const auto& spill : report.spills)
        std::printf("  spills %d bytes: %s\n", spill.spill_store_bytes, canonical_json(spill.config).c_str());
      // Nor are serialised wgmmas (the variant computes correctly), but they cost the overlap a Hopper
      // template is written for.
      for (const auto& serialized : report.serialized_wgmma)
        std::printf("  wgmma serialized (ptxas C7514: %s): %s\n", serialized.reason.c_str(),
                    canonical_json(serialized.config).c_str());
      if (!report.failures.empty() || (options.no_serialized_wgmma && !report.serialized_wgmma.empty()))
        ++failed_checks;
    }
  }
  if (failed_checks > 0)
    throw Error(
        std::to_string(failed_checks) + " check(s) failed: a config the conditions allow must compile" +
        (options.no_serialized_wgmma ? ", with its wgmmas not serialised (--no-serialized-wgmma)" : ""));
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("check", "Validate space files and compile every valid variant (no GPU)");
  auto options = std::make_shared<CheckOptions>();
  command->add_option("spaces", options->spaces, "Search-space JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--arch", options->archs, "Target architectures (repeatable)")->capture_default_str();
  command->add_option("--problem", options->problem, "Problem sizes (default: the space's)");
  command->add_option("--db", options->db,
                      "Keep the compiles in this database's compile cache (a file or postgresql://...): GPU "
                      "hosts tuning into it then only evaluate");
  command
      ->add_option("--sample", options->sample,
                   "Compile only this many valid configs: every parameter's smallest and largest value, then "
                   "evenly spread ones (0: all)")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "Parallel compiles (0: one per core)")
      ->capture_default_str();
  command->add_flag(
      "--no-serialized-wgmma", options->no_serialized_wgmma,
      "Fail the check when ptxas serialises a variant's wgmmas (C7514): for templates written to "
      "overlap their tensor-core batches with other work");
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
