// `evotune show CONFIG_ID`: one config's parameters, every stored measurement and its compile details.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/sanitizer_table.hpp"
#include "core/error.hpp"
#include "store/store.hpp"

namespace evotune::cli {
namespace {

void print_measurement(const MeasurementDetail& m, bool with_log) {
  const Outcome& o = m.outcome;
  std::printf("  measurement %lld (run %lld, %s) problem %s on %s: %s\n",
              static_cast<long long>(m.measurement_id), static_cast<long long>(m.run_id),
              m.created_at.c_str(), key_value_text(m.problem).c_str(), m.device_name.c_str(),
              std::string(to_string(o.status)).c_str());
  if (!o.message.empty()) std::printf("    reason: %s\n", o.message.c_str());
  if (o.timing)
    std::printf(
        "    time: median %.2f us, min %.2f, mean %.2f, stddev %.2f, p20 %.2f, p80 %.2f (%d samples); "
        "%.1f TFLOP/s, %.0f GB/s\n",
        o.timing->median_us, o.timing->min_us, o.timing->mean_us, o.timing->stddev_us, o.timing->p20_us,
        o.timing->p80_us, o.timing->samples, m.tflops, m.gbps);
  if (o.timing && o.timing->method) std::printf("    timed as %s\n", describe(*o.timing->method).c_str());
  if (o.error)
    std::printf("    error vs reference: max_abs %.3g, rel_l2 %.3g, non-finite %lld of %lld (seed %llu)\n",
                o.error->max_abs, o.error->rel_l2, static_cast<long long>(o.error->non_finite),
                static_cast<long long>(o.error->elements),
                static_cast<unsigned long long>(o.validation_seed));
  if (m.compile_id) {
    std::printf("    compile %lld (%s): %d registers, %d B static smem, %d B stack, spills %d/%d B, %.0f ms",
                static_cast<long long>(*m.compile_id), o.compile.arch.c_str(), o.compile.registers,
                o.compile.static_smem_bytes, o.compile.stack_frame_bytes, o.compile.spill_store_bytes,
                o.compile.spill_load_bytes, o.compile.compile_ms);
    if (const auto& phases = o.compile.phases)
      std::printf(" (NVRTC: front end %.0f ms, NVVM %.0f ms, ptxas %.0f ms)", phases->frontend_ms,
                  phases->nvvm_ms, phases->ptxas_ms);
    std::printf("\n");
  }
  if (with_log && !o.compile.log.empty()) std::printf("    log:\n%s\n", o.compile.log.c_str());
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto* command = app.add_subcommand("show", "Show one config: parameters, measurements, compile details");
  auto db = std::make_shared<std::string>(kDefaultDb);
  auto id = std::make_shared<long long>(0);
  auto log = std::make_shared<bool>(false);
  command->add_option("config_id", *id, "Config id (from `evotune best`)")->required();
  command->add_flag("--log", *log, "Print the compiler log and the sanitizer reports too");
  command->add_option("--db", *db, "Results database")->capture_default_str();
  command->callback([db, id, log] {
    const Store store = Store::open_existing(*db);
    const auto detail = store.config_detail(*id);
    if (!detail) throw Error("no config " + std::to_string(*id) + " in " + *db);
    std::printf("config %lld of %s (%s, %s)\n  params: %s\n", static_cast<long long>(detail->config_id),
                detail->space_name.c_str(), detail->space_hash.c_str(), detail->space_path.c_str(),
                canonical_json(detail->params).c_str());
    if (detail->measurements.empty()) std::printf("  not measured yet\n");
    for (const auto& m : detail->measurements) print_measurement(m, *log);
    for (const auto& stored : detail->sanitizer_findings) {
      std::printf("  compute-sanitizer (%s) problem %s on %s:\n", stored.created_at.c_str(),
                  key_value_text(stored.problem).c_str(), stored.device.c_str());
      print_sanitizer_finding(stored.finding, "    ", stdout);
      if (*log && !stored.finding.report.empty())
        std::printf("      report:\n%s", stored.finding.report.c_str());
    }
  });
}

}  // namespace evotune::cli
