// JSON conversions of the worker messages' parts.
#include "eval/wire_format.hpp"

#include "compile/compile_wire.hpp"
#include "core/error.hpp"

namespace evotune {
namespace {

using nlohmann::json;

DType dtype_named(const std::string& name) {
  const auto dtype = dtype_from_string(name);
  if (!dtype) throw Error("unknown dtype '" + name + "' in a worker message");
  return *dtype;
}

json timing_json(const TimingStats& t) {
  return {{"median_us", t.median_us}, {"min_us", t.min_us}, {"mean_us", t.mean_us},
          {"stddev_us", t.stddev_us}, {"p20_us", t.p20_us}, {"p80_us", t.p80_us},
          {"samples", t.samples}};
}

TimingStats timing_from(const json& j) {
  return {j.at("median_us"), j.at("min_us"), j.at("mean_us"), j.at("stddev_us"),
          j.at("p20_us"),    j.at("p80_us"), j.at("samples")};
}

}  // namespace

json to_json(const BufferSpec& b) {
  return {{"name", b.name},
          {"dtype", std::string(to_string(b.dtype))},
          {"count", b.count},
          {"is_input", b.is_input},
          {"is_output", b.is_output},
          {"fill_kind", b.fill.kind == FillSpec::Kind::constant ? "constant" : "random_uniform"},
          {"fill_low", b.fill.low},
          {"fill_high", b.fill.high},
          {"fill_value", b.fill.value}};
}

BufferSpec buffer_from_json(const json& j) {
  BufferSpec b;
  b.name = j.at("name");
  b.dtype = dtype_named(j.at("dtype"));
  b.count = j.at("count");
  b.is_input = j.at("is_input");
  b.is_output = j.at("is_output");
  b.fill.kind = j.at("fill_kind") == "constant" ? FillSpec::Kind::constant : FillSpec::Kind::random_uniform;
  b.fill.low = j.at("fill_low");
  b.fill.high = j.at("fill_high");
  b.fill.value = j.at("fill_value");
  return b;
}

json to_json(const LaunchSpec& l) {
  json args = json::array();
  for (const auto& a : l.args)
    args.push_back({{"kind", a.kind == ArgSpec::Kind::buffer ? "buffer" : "scalar"},
                    {"name", a.name},
                    {"dtype", std::string(to_string(a.dtype))},
                    {"value", a.value}});
  return {{"kernel_name", l.kernel_name},
          {"grid", l.grid},
          {"block", l.block},
          {"dynamic_smem_bytes", l.dynamic_smem_bytes},
          {"args", args}};
}

LaunchSpec launch_from_json(const json& j) {
  LaunchSpec l;
  l.kernel_name = j.at("kernel_name");
  l.grid = j.at("grid");
  l.block = j.at("block");
  l.dynamic_smem_bytes = j.at("dynamic_smem_bytes");
  for (const auto& a : j.at("args")) {
    ArgSpec arg;
    arg.kind = a.at("kind") == "buffer" ? ArgSpec::Kind::buffer : ArgSpec::Kind::scalar;
    arg.name = a.at("name");
    arg.dtype = dtype_named(a.at("dtype"));
    arg.value = a.at("value");
    l.args.push_back(std::move(arg));
  }
  return l;
}

json to_json(const CompiledKernel& k) {
  return {{"cubin", json::binary(std::vector<std::uint8_t>(k.cubin.begin(), k.cubin.end()))},
          {"launch", to_json(k.launch)}};
}

CompiledKernel kernel_from_json(const json& j) {
  const auto& bytes = j.at("cubin").get_binary();
  return {std::string(bytes.begin(), bytes.end()), launch_from_json(j.at("launch"))};
}

json to_json(const Tolerances& t) { return {{"max_abs", t.max_abs}, {"rel_l2", t.rel_l2}}; }

Tolerances tolerances_from_json(const json& j) { return {j.at("max_abs"), j.at("rel_l2")}; }

json to_json(const EvalSettings& s) {
  return {{"warmup", s.warmup},
          {"repetitions", s.repetitions},
          {"flush_l2", s.flush_l2},
          {"timeout_ms", s.timeout_ms},
          {"reset_in_process", s.reset_in_process}};
}

EvalSettings settings_from_json(const json& j) {
  return {j.at("warmup"), j.at("repetitions"), j.at("flush_l2"), j.at("timeout_ms"),
          j.at("reset_in_process")};
}

json to_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"cc_major", d.cc_major},
          {"cc_minor", d.cc_minor},
          {"driver_version", d.driver_version},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"global_mem_bytes", d.global_mem_bytes},
          {"max_threads_per_block", d.max_threads_per_block},
          {"max_smem_per_block", d.max_smem_per_block},
          {"smem_per_sm", d.smem_per_sm},
          {"regs_per_block", d.regs_per_block},
          {"regs_per_sm", d.regs_per_sm},
          {"warp_size", d.warp_size}};
}

DeviceInfo device_from_json(const json& j) {
  DeviceInfo d;
  d.name = j.at("name");
  d.cc_major = j.at("cc_major");
  d.cc_minor = j.at("cc_minor");
  d.driver_version = j.at("driver_version");
  d.sm_count = j.at("sm_count");
  d.l2_bytes = j.at("l2_bytes");
  d.global_mem_bytes = j.at("global_mem_bytes");
  d.max_threads_per_block = j.at("max_threads_per_block");
  d.max_smem_per_block = j.at("max_smem_per_block");
  d.smem_per_sm = j.at("smem_per_sm");
  d.regs_per_block = j.at("regs_per_block");
  d.regs_per_sm = j.at("regs_per_sm");
  d.warp_size = j.at("warp_size");
  return d;
}

json to_json(const Outcome& o) {
  json j = {{"status", std::string(to_string(o.status))},
            {"message", o.message},
            {"compile", to_json(o.compile)},
            {"validation_seed", o.validation_seed},
            {"validate_ms", o.validate_ms},
            {"bench_ms", o.bench_ms}};
  if (o.error)
    j["error"] = {{"max_abs", o.error->max_abs},
                  {"rel_l2", o.error->rel_l2},
                  {"non_finite", o.error->non_finite},
                  {"elements", o.error->elements}};
  if (o.timing) j["timing"] = timing_json(*o.timing);
  return j;
}

Outcome outcome_from_json(const json& j) {
  Outcome o;
  const auto status = status_from_string(j.at("status").get<std::string>());
  if (!status) throw Error("unknown status in a worker message");
  o.status = *status;
  o.message = j.at("message");
  o.compile = compile_info_from_json(j.at("compile"));
  o.validation_seed = j.at("validation_seed");
  o.validate_ms = j.at("validate_ms");
  o.bench_ms = j.at("bench_ms");
  if (j.contains("error")) {
    const auto& e = j["error"];
    o.error = ErrorStats{e.at("max_abs"), e.at("rel_l2"), e.at("non_finite"), e.at("elements")};
  }
  if (j.contains("timing")) o.timing = timing_from(j["timing"]);
  return o;
}

}  // namespace evotune
