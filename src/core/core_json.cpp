// JSON of what a measurement yields: the device, timing and error figures, compile details, the outcome.
#include "core/core_json.hpp"

#include <cstdio>

namespace evotune {

using ordered_json = nlohmann::ordered_json;

ordered_json to_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"arch", d.arch()},
          {"cc_major", d.cc_major},
          {"cc_minor", d.cc_minor},
          {"driver_version", d.driver_version},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"max_smem_per_block", d.max_smem_per_block},
          {"global_mem_bytes", d.global_mem_bytes},
          {"max_threads_per_block", d.max_threads_per_block},
          {"smem_per_sm", d.smem_per_sm},
          {"regs_per_block", d.regs_per_block},
          {"regs_per_sm", d.regs_per_sm},
          {"warp_size", d.warp_size}};
}

DeviceInfo device_from_json(const Fields& f) {
  f.only({"name", "arch", "cc_major", "cc_minor", "driver_version", "sm_count", "l2_bytes",
          "max_smem_per_block", "global_mem_bytes", "max_threads_per_block", "smem_per_sm", "regs_per_block",
          "regs_per_sm", "warp_size"});
  DeviceInfo d;
  d.name = f.text("name");
  d.cc_major = f.small_integer("cc_major");
  d.cc_minor = f.small_integer("cc_minor");
  const std::string arch = f.text("arch");
  if (arch != d.arch())
    f.fail(f.name("arch"), "'" + arch + "' does not match cc_major/cc_minor (" + d.arch() + ")");
  d.driver_version = f.small_integer("driver_version");
  d.sm_count = f.small_integer("sm_count");
  d.l2_bytes = f.integer("l2_bytes");
  d.max_smem_per_block = f.small_integer("max_smem_per_block");
  if (f.has("global_mem_bytes")) d.global_mem_bytes = f.integer("global_mem_bytes");
  for (auto [key, field] : {std::pair{"max_threads_per_block", &d.max_threads_per_block},
                            {"smem_per_sm", &d.smem_per_sm},
                            {"regs_per_block", &d.regs_per_block},
                            {"regs_per_sm", &d.regs_per_sm},
                            {"warp_size", &d.warp_size}})
    if (f.has(key)) *field = f.small_integer(key);
  return d;
}

std::string describe_timing(const nlohmann::json& t) {
  const std::string mode = t.value("timing", std::string("single"));
  std::string warmup = std::to_string(t.value("warmup", 0)) + " warm-up + ";
  if (const double ms = t.value("warmup_ms", 0.0); ms > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "%g ms sustained warm-up + ", ms);
    warmup += text;
  }
  const std::string timed = std::to_string(t.value("repetitions", 0));
  const bool flush = t.value("flush_l2", true);
  std::string text;
  if (mode == "graph") {
    text = "CUDA graphs of up to " + std::to_string(kGraphMaxExecutions) + " executions, " + warmup + timed +
           " timed replays, " + (flush ? "L2 flushed before each replay" : "L2 not flushed");
  } else if (mode == "auto") {
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "%g", kAutoGraphBelowUs);
    text = std::string("CUDA graphs for variants under ") + threshold + " us, else CUDA events, " + warmup +
           timed + " timed replays or launches, " + (flush ? "L2 flushed before each" : "L2 not flushed");
  } else {
    text = "CUDA events, " + warmup + timed + " timed launches, " +
           (flush ? "L2 flushed before each" : "L2 not flushed");
  }
  return text + ", " + std::to_string(t.value("validation_rounds", 0)) + " validation rounds";
}

ordered_json to_json(const TimingMethod& m) {
  ordered_json j = {{"mode", m.graph ? "graph" : "single"},
                    {"graph_executions", m.graph_executions},
                    {"flush_l2", m.flush_l2}};
  if (!m.fallback.empty()) j["fallback"] = m.fallback;
  if (!m.cut.empty()) j["cut"] = m.cut;
  return j;
}

TimingMethod timing_method_from_json(const Fields& f) {
  f.only({"mode", "graph_executions", "flush_l2", "fallback", "cut"});
  TimingMethod m;
  const TimingMode mode = timing_mode_from_json(f, "mode");
  if (mode == TimingMode::automatic)
    f.fail(f.name("mode"), "a measurement is timed single or graph, not auto");
  m.graph = mode == TimingMode::graph;
  m.graph_executions = f.small_integer("graph_executions");
  m.flush_l2 = f.boolean("flush_l2");
  if (f.has("fallback")) m.fallback = f.text("fallback");
  if (f.has("cut")) m.cut = f.text("cut");
  return m;
}

ordered_json to_json(const TimingStats& t) {
  ordered_json j = {{"median_us", t.median_us}, {"min_us", t.min_us}, {"mean_us", t.mean_us},
                    {"stddev_us", t.stddev_us}, {"p20_us", t.p20_us}, {"p80_us", t.p80_us},
                    {"samples", t.samples}};
  if (t.method) j["method"] = to_json(*t.method);
  return j;
}

TimingStats timing_from_json(const Fields& f) {
  f.only({"median_us", "min_us", "mean_us", "stddev_us", "p20_us", "p80_us", "samples", "method"});
  TimingStats t;
  t.median_us = f.number("median_us");
  t.min_us = f.number("min_us");
  t.mean_us = f.number("mean_us");
  t.stddev_us = f.number("stddev_us");
  t.p20_us = f.number("p20_us");
  t.p80_us = f.number("p80_us");
  t.samples = f.small_integer("samples");
  if (t.median_us < 0) f.fail(f.name("median_us"), "a time cannot be negative");
  if (f.has("method")) t.method = timing_method_from_json(f.object("method"));
  return t;
}

ordered_json to_json(const EnergyStats& e) {
  return {{"uj_per_execution", e.uj_per_execution},
          {"avg_power_w", e.avg_power_w},
          {"window_ms", e.window_ms},
          {"executions", e.executions}};
}

EnergyStats energy_from_json(const Fields& f) {
  f.only({"uj_per_execution", "avg_power_w", "window_ms", "executions"});
  EnergyStats e;
  e.uj_per_execution = f.number("uj_per_execution");
  e.avg_power_w = f.number("avg_power_w");
  e.window_ms = f.number("window_ms");
  e.executions = f.integer("executions");
  if (e.uj_per_execution < 0 || e.avg_power_w < 0)
    f.fail(f.name("uj_per_execution"), "an energy cannot be negative");
  return e;
}

ordered_json to_json(const ErrorStats& e) {
  return {
      {"max_abs", e.max_abs}, {"rel_l2", e.rel_l2}, {"non_finite", e.non_finite}, {"elements", e.elements}};
}

ErrorStats error_stats_from_json(const Fields& f) {
  f.only({"max_abs", "rel_l2", "non_finite", "elements"});
  return {f.number("max_abs"), f.number("rel_l2"), f.integer("non_finite"), f.integer("elements")};
}

ordered_json to_json(const CompileInfo& c) {
  ordered_json j = {{"arch", c.arch},
                    {"registers", c.registers},
                    {"static_smem_bytes", c.static_smem_bytes},
                    {"spill_store_bytes", c.spill_store_bytes},
                    {"spill_load_bytes", c.spill_load_bytes},
                    {"stack_frame_bytes", c.stack_frame_bytes},
                    {"compile_ms", c.compile_ms},
                    {"from_cache", c.from_cache},
                    {"log", c.log}};
  if (c.phases)
    j["phases"] = {{"frontend_ms", c.phases->frontend_ms},
                   {"nvvm_ms", c.phases->nvvm_ms},
                   {"ptxas_ms", c.phases->ptxas_ms}};
  return j;
}

CompileInfo compile_info_from_json(const Fields& f) {
  f.only({"arch", "registers", "static_smem_bytes", "spill_store_bytes", "spill_load_bytes",
          "stack_frame_bytes", "compile_ms", "from_cache", "log", "phases"});
  CompileInfo c;
  c.arch = f.text("arch");
  c.registers = f.small_integer("registers");
  c.static_smem_bytes = f.small_integer("static_smem_bytes");
  c.spill_store_bytes = f.small_integer("spill_store_bytes");
  c.spill_load_bytes = f.small_integer("spill_load_bytes");
  c.stack_frame_bytes = f.small_integer("stack_frame_bytes");
  c.compile_ms = f.number("compile_ms");
  c.from_cache = f.boolean("from_cache");
  c.log = f.text("log");
  if (f.has("phases")) {
    const Fields phases = f.object("phases");
    phases.only({"frontend_ms", "nvvm_ms", "ptxas_ms"});
    c.phases =
        CompilePhases{phases.number("frontend_ms"), phases.number("nvvm_ms"), phases.number("ptxas_ms")};
  }
  return c;
}

Status status_from_json(const Fields& f, const std::string& key) {
  const std::string name = f.text(key);
  const auto status = status_from_string(name);
  if (!status) f.fail(f.name(key), "unknown status '" + name + "'");
  return *status;
}

ordered_json to_json(const Outcome& o) {
  ordered_json j = {{"status", to_string(o.status)},
                    {"message", o.message},
                    {"compile", to_json(o.compile)},
                    {"validation_seed", o.validation_seed},
                    {"validation_rounds", o.validation_rounds},
                    {"validate_ms", o.validate_ms},
                    {"bench_ms", o.bench_ms}};
  if (o.error) j["error"] = to_json(*o.error);
  if (o.timing) j["timing"] = to_json(*o.timing);
  if (o.energy) j["energy"] = to_json(*o.energy);
  return j;
}

Outcome outcome_from_json(const Fields& f) {
  f.only({"status", "message", "compile", "validation_seed", "validation_rounds", "validate_ms", "bench_ms",
          "error", "timing", "energy"});
  Outcome o;
  o.status = status_from_json(f, "status");
  o.message = f.text("message");
  o.compile = compile_info_from_json(f.object("compile"));
  o.validation_seed = f.unsigned_integer("validation_seed");
  o.validation_rounds = static_cast<int>(f.integer("validation_rounds", 0, 64));
  o.validate_ms = f.number("validate_ms");
  o.bench_ms = f.number("bench_ms");
  if (f.has("error")) o.error = error_stats_from_json(f.object("error"));
  if (f.has("timing")) o.timing = timing_from_json(f.object("timing"));
  if (f.has("energy")) o.energy = energy_from_json(f.object("energy"));
  return o;
}

ordered_json to_json(const GemmBaselineSpec& spec) {
  return {{"library", spec.library},
          {"m", spec.m},
          {"n", spec.n},
          {"k", spec.k},
          {"b_kmajor", spec.b_kmajor},
          {"a", spec.a},
          {"b", spec.b},
          {"d", spec.d},
          {"input", std::string(to_string(spec.input))},
          {"output", std::string(to_string(spec.output))}};
}

GemmBaselineSpec gemm_baseline_from_json(const Fields& f) {
  f.only({"library", "m", "n", "k", "b_kmajor", "a", "b", "d", "input", "output"});
  GemmBaselineSpec spec;
  spec.library = f.text("library");
  spec.m = f.integer("m", 1);
  spec.n = f.integer("n", 1);
  spec.k = f.integer("k", 1);
  spec.b_kmajor = f.boolean("b_kmajor");
  spec.a = f.text("a");
  spec.b = f.text("b");
  spec.d = f.text("d");
  for (const auto& [key, type] : {std::pair{"input", &spec.input}, std::pair{"output", &spec.output}}) {
    const auto parsed = dtype_from_string(f.text(key));
    if (!parsed) f.fail(key, "unknown element type '" + f.text(key) + "'");
    *type = *parsed;
  }
  return spec;
}

ordered_json to_json(const BaselineTiming& timing) {
  return {{"library", timing.library},        {"heuristic_us", timing.heuristic_us},
          {"best_us", timing.best_us},        {"best_index", timing.best_index},
          {"algorithms", timing.algorithms},  {"timing_mode", timing.timing_mode},
          {"reranked_us", timing.reranked_us}};
}

BaselineTiming baseline_timing_from_json(const Fields& f) {
  f.only({"library", "heuristic_us", "best_us", "best_index", "algorithms", "timing_mode", "reranked_us"});
  return {f.text("library"),
          f.number("heuristic_us"),
          f.number("best_us"),
          f.small_integer("best_index"),
          f.small_integer("algorithms"),
          f.text("timing_mode"),
          f.number("reranked_us")};
}

}  // namespace evotune
