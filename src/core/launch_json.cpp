// JSON of what a measurement needs: buffers, launches, compiled kernels, tolerances and settings.
#include <limits>

#include "core/core_json.hpp"

namespace evotune {
namespace {

using ordered_json = nlohmann::ordered_json;

DType dtype_from_json(const Fields& f, const std::string& key) {
  const std::string name = f.text(key);
  const auto dtype = dtype_from_string(name);
  if (!dtype) f.fail(f.name(key), "unknown dtype '" + name + "'");
  return *dtype;
}

// One of two names, the first meaning `first`: "buffer" or "scalar".
template <typename Kind>
Kind kind_from_json(const Fields& f, const std::string& key, const char* first_name, Kind first,
                    const char* second_name, Kind second) {
  const std::string name = f.text(key);
  if (name == first_name) return first;
  if (name == second_name) return second;
  f.fail(f.name(key),
         "expected \"" + std::string(first_name) + "\" or \"" + second_name + "\", got \"" + name + "\"");
}

std::array<std::uint32_t, 3> dim3_from_json(const Fields& f, const std::string& key) {
  const auto values = f.integers(key, 0, std::numeric_limits<std::uint32_t>::max(), 3);
  return {static_cast<std::uint32_t>(values[0]), static_cast<std::uint32_t>(values[1]),
          static_cast<std::uint32_t>(values[2])};
}

}  // namespace

namespace {

const char* fill_kind_name(FillSpec::Kind kind) {
  switch (kind) {
    case FillSpec::Kind::constant:
      return "constant";
    case FillSpec::Kind::derived:
      return "derived";
    case FillSpec::Kind::random_uniform:
      break;
  }
  return "random_uniform";
}

FillSpec::Kind fill_kind_from_json(const Fields& f) {
  const std::string name = f.text("fill_kind");
  for (const auto kind : {FillSpec::Kind::random_uniform, FillSpec::Kind::constant, FillSpec::Kind::derived})
    if (name == fill_kind_name(kind)) return kind;
  f.fail(f.name("fill_kind"),
         "expected \"random_uniform\", \"constant\" or \"derived\", got \"" + name + "\"");
}

ordered_json fill_json(const FillSpec& fill) {
  return {{"fill_kind", fill_kind_name(fill.kind)},
          {"fill_low", fill.low},
          {"fill_high", fill.high},
          {"fill_value", fill.value}};
}

FillSpec fill_from_json(const Fields& f) {
  FillSpec fill;
  fill.kind = fill_kind_from_json(f);
  fill.low = f.number("fill_low");
  fill.high = f.number("fill_high");
  fill.value = f.number("fill_value");
  return fill;
}

}  // namespace

ordered_json to_json(const BufferSpec& b) {
  ordered_json json{{"name", b.name},
                    {"dtype", to_string(b.dtype)},
                    {"count", b.count},
                    {"is_input", b.is_input},
                    {"is_output", b.is_output}};
  json.update(fill_json(b.fill));
  if (!b.special_fills.empty()) {  // absent otherwise, so files written before they existed keep their bytes
    ordered_json special = ordered_json::array();
    for (const auto& fill : b.special_fills) special.push_back(fill_json(fill));
    json["special_fills"] = special;
  }
  if (!b.constant_symbol.empty()) json["constant_symbol"] = b.constant_symbol;
  return json;
}

BufferSpec buffer_from_json(const Fields& f) {
  f.only({"name", "dtype", "count", "is_input", "is_output", "fill_kind", "fill_low", "fill_high",
          "fill_value", "special_fills", "constant_symbol"});
  BufferSpec b;
  b.name = f.text("name");
  b.dtype = dtype_from_json(f, "dtype");
  b.count = f.integer("count");
  b.is_input = f.boolean("is_input");
  b.is_output = f.boolean("is_output");
  b.fill = fill_from_json(f);
  if (f.has("special_fills"))
    for (const Fields& special : f.objects("special_fills")) {
      special.only({"fill_kind", "fill_low", "fill_high", "fill_value"});
      b.special_fills.push_back(fill_from_json(special));
    }
  if (f.has("constant_symbol")) b.constant_symbol = f.text("constant_symbol");
  return b;
}

ordered_json to_json(const LaunchSpec& l) {
  ordered_json args = ordered_json::array();
  for (const auto& a : l.args) {
    const char* kind = a.kind == ArgSpec::Kind::buffer   ? "buffer"
                       : a.kind == ArgSpec::Kind::scalar ? "scalar"
                                                         : "tensor_map";
    ordered_json arg{{"kind", kind}, {"name", a.name}, {"dtype", to_string(a.dtype)}, {"value", a.value}};
    if (a.kind == ArgSpec::Kind::tensor_map)
      arg["map"] = {{"buffer", a.map.buffer},
                    {"dims", a.map.dims},
                    {"strides", a.map.strides},
                    {"box", a.map.box},
                    {"swizzle_bytes", a.map.swizzle_bytes}};
    args.push_back(std::move(arg));
  }
  ordered_json json{{"kernel_name", l.kernel_name},
                    {"grid", l.grid},
                    {"block", l.block},
                    {"dynamic_smem_bytes", l.dynamic_smem_bytes},
                    {"args", args}};
  // Absent for a single launch, so that messages and files of single-kernel spaces keep their bytes.
  if (!l.then.empty()) {
    ordered_json then = ordered_json::array();
    for (const auto& next : l.then) then.push_back(to_json(next));
    json["then"] = then;
  }
  if (l.cluster != std::array<std::uint32_t, 3>{1, 1, 1}) json["cluster"] = l.cluster;
  if (l.programmatic)
    json["programmatic"] = true;  // absent when false: earlier jobs and files keep their bytes
  if (!l.scratch.empty()) {
    ordered_json scratch = ordered_json::array();
    for (const auto& s : l.scratch) {
      ordered_json one = {{"name", s.name}, {"dtype", to_string(s.dtype)}, {"count", s.count}};
      if (s.zeroed) one["zeroed"] = true;  // absent when false: earlier jobs and files keep their bytes
      scratch.push_back(one);
    }
    json["scratch"] = scratch;
  }
  return json;
}

LaunchSpec launch_from_json(const Fields& f) {
  f.only({"kernel_name", "grid", "block", "dynamic_smem_bytes", "cluster", "programmatic", "args", "then",
          "scratch"});
  LaunchSpec l;
  l.kernel_name = f.text("kernel_name");
  l.grid = dim3_from_json(f, "grid");
  l.block = dim3_from_json(f, "block");
  if (f.has("cluster")) l.cluster = dim3_from_json(f, "cluster");
  l.programmatic = f.has("programmatic") && f.boolean("programmatic");
  l.dynamic_smem_bytes = static_cast<std::uint32_t>(
      f.integer("dynamic_smem_bytes", 0, std::numeric_limits<std::uint32_t>::max()));
  for (const Fields& a : f.objects("args")) {
    a.only({"kind", "name", "dtype", "value", "map"});
    ArgSpec arg;
    if (a.text("kind") == "tensor_map") {
      arg.kind = ArgSpec::Kind::tensor_map;
      const Fields m = a.object("map");
      m.only({"buffer", "dims", "strides", "box", "swizzle_bytes"});
      arg.map.buffer = m.text("buffer");
      constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
      arg.map.dims = m.integers("dims", 1, kMax);
      arg.map.strides = m.integers("strides", 0, kMax);
      arg.map.box = m.integers("box", 1, 256);
      arg.map.swizzle_bytes = static_cast<int>(m.integer("swizzle_bytes", 0, 128));
    } else {
      arg.kind = kind_from_json(a, "kind", "buffer", ArgSpec::Kind::buffer, "scalar", ArgSpec::Kind::scalar);
    }
    arg.name = a.text("name");
    arg.dtype = dtype_from_json(a, "dtype");
    arg.value = a.number("value");
    l.args.push_back(std::move(arg));
  }
  if (f.has("then"))
    for (const Fields& next : f.objects("then")) l.then.push_back(launch_from_json(next));
  if (f.has("scratch"))
    for (const Fields& s : f.objects("scratch")) {
      s.only({"name", "dtype", "count", "zeroed"});
      l.scratch.push_back({s.text("name"), dtype_from_json(s, "dtype"), s.integer("count"),
                           s.has("zeroed") && s.boolean("zeroed")});
    }
  return l;
}

ordered_json to_json(const CompiledKernel& k) {
  return {{"cubin", ordered_json::binary(std::vector<std::uint8_t>(k.cubin.begin(), k.cubin.end()))},
          {"launch", to_json(k.launch)}};
}

CompiledKernel kernel_from_json(const Fields& f) {
  f.only({"cubin", "launch"});
  return {f.bytes("cubin"), launch_from_json(f.object("launch"))};
}

ordered_json to_json(const Tolerances& t) {
  return {{"max_abs", t.max_abs}, {"rel_l2", t.rel_l2}, {"deterministic", t.deterministic}};
}

Tolerances tolerances_from_json(const Fields& f) {
  f.only({"max_abs", "rel_l2", "deterministic"});
  return {f.number("max_abs"), f.number("rel_l2"), f.boolean("deterministic")};
}

ordered_json to_json(const EvalSettings& s) {
  return {{"warmup", s.warmup},
          {"warmup_ms", s.warmup_ms},
          {"repetitions", s.repetitions},
          {"flush_l2", s.flush_l2},
          {"timeout_ms", s.timeout_ms},
          {"reset_in_process", s.reset_in_process},
          {"validation_rounds", s.validation_rounds},
          {"timing", to_string(s.timing)},
          {"measure_energy", s.measure_energy},
          {"energy_window_ms", s.energy_window_ms},
          {"guard_margins", s.guard_margins}};
}

TimingMode timing_mode_from_json(const Fields& f, const std::string& key) {
  const std::string name = f.text(key);
  const auto mode = timing_mode_from_string(name);
  if (!mode) f.fail(f.name(key), "unknown timing mode '" + name + "' (single, graph or auto)");
  return *mode;
}

// Settings written before the timing modes have no "timing": they timed single launches.
EvalSettings settings_from_json(const Fields& f) {
  f.only({"warmup", "warmup_ms", "repetitions", "flush_l2", "timeout_ms", "reset_in_process",
          "validation_rounds", "timing", "measure_energy", "energy_window_ms", "guard_margins"});
  constexpr auto low = std::numeric_limits<int>::min(), high = std::numeric_limits<int>::max();
  EvalSettings settings;
  settings.warmup = static_cast<int>(f.integer("warmup", low, high));
  settings.repetitions = static_cast<int>(f.integer("repetitions", low, high));
  settings.flush_l2 = f.boolean("flush_l2");
  settings.timeout_ms = f.number("timeout_ms");
  settings.reset_in_process = f.boolean("reset_in_process");
  settings.validation_rounds = static_cast<int>(f.integer("validation_rounds", 1, 64));
  settings.timing = f.has("timing") ? timing_mode_from_json(f, "timing") : TimingMode::single;
  // Settings written before energy was measured have neither: they measured none.
  settings.measure_energy = f.has("measure_energy") && f.boolean("measure_energy");
  if (f.has("energy_window_ms")) settings.energy_window_ms = f.number("energy_window_ms");
  // Settings written before the sustained warm-up had none.
  if (f.has("warmup_ms")) settings.warmup_ms = f.number("warmup_ms");
  if (f.has("guard_margins")) settings.guard_margins = f.boolean("guard_margins");
  return settings;
}

}  // namespace evotune
