// JSON conversions of compile requests, results and resource usage.
#include "compile/compile_wire.hpp"

#include "core/error.hpp"

namespace evotune {

using nlohmann::json;

json to_json(const CompileInfo& c) {
  json phases = nullptr;
  if (c.phases)
    phases = {{"frontend_ms", c.phases->frontend_ms},
              {"nvvm_ms", c.phases->nvvm_ms},
              {"ptxas_ms", c.phases->ptxas_ms}};
  return {{"arch", c.arch},
          {"registers", c.registers},
          {"static_smem_bytes", c.static_smem_bytes},
          {"spill_store_bytes", c.spill_store_bytes},
          {"spill_load_bytes", c.spill_load_bytes},
          {"stack_frame_bytes", c.stack_frame_bytes},
          {"compile_ms", c.compile_ms},
          {"phases", phases},
          {"from_cache", c.from_cache},
          {"log", c.log}};
}

CompileInfo compile_info_from_json(const json& j) {
  CompileInfo c;
  c.arch = j.value("arch", "");
  c.registers = j.value("registers", 0);
  c.static_smem_bytes = j.value("static_smem_bytes", 0);
  c.spill_store_bytes = j.value("spill_store_bytes", 0);
  c.spill_load_bytes = j.value("spill_load_bytes", 0);
  c.stack_frame_bytes = j.value("stack_frame_bytes", 0);
  c.compile_ms = j.value("compile_ms", 0.0);
  if (const auto phases = j.find("phases"); phases != j.end() && phases->is_object())
    c.phases = CompilePhases{phases->at("frontend_ms"), phases->at("nvvm_ms"), phases->at("ptxas_ms")};
  c.from_cache = j.value("from_cache", false);
  c.log = j.value("log", "");
  return c;
}

json to_json(const CompileRequest& r) {
  return {{"source", r.source},
          {"file_name", r.file_name},
          {"kernel_name", r.kernel_name},
          {"arch", r.arch},
          {"options", r.options}};
}

CompileRequest compile_request_from_json(const json& j) {
  return {j.at("source"), j.at("file_name"), j.at("kernel_name"), j.at("arch"), j.at("options")};
}

json to_json(const CompileResult& r) {
  return {{"status", std::string(to_string(r.status))},
          {"message", r.message},
          {"info", to_json(r.info)},
          {"cubin", json::binary(std::vector<std::uint8_t>(r.cubin.begin(), r.cubin.end()))}};
}

CompileResult compile_result_from_json(const json& j) {
  CompileResult r;
  const auto status = status_from_string(j.at("status").get<std::string>());
  if (!status) throw Error("unknown status in a compile answer");
  r.status = *status;
  r.message = j.at("message");
  r.info = compile_info_from_json(j.at("info"));
  const auto& bytes = j.at("cubin").get_binary();
  r.cubin.assign(bytes.begin(), bytes.end());
  return r;
}

}  // namespace evotune
