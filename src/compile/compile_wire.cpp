// JSON conversions of compile requests and results; resource usage goes through the core serialiser.
#include "compile/compile_wire.hpp"

#include "core/core_json.hpp"
#include "core/json_fields.hpp"

namespace evotune {

using nlohmann::json;

json to_json(const CompileRequest& r) {
  return {{"source", r.source},
          {"file_name", r.file_name},
          {"kernel_name", r.kernel_name},
          {"arch", r.arch},
          {"options", r.options}};
}

CompileRequest compile_request_from_json(const json& j) {
  const Fields f(j, "", "compile request");
  f.only({"source", "file_name", "kernel_name", "arch", "options"});
  return {f.text("source"), f.text("file_name"), f.text("kernel_name"), f.text("arch"), f.texts("options")};
}

json to_json(const CompileResult& r) {
  return {{"status", std::string(to_string(r.status))},
          {"message", r.message},
          {"info", to_json(r.info)},
          {"cubin", json::binary(std::vector<std::uint8_t>(r.cubin.begin(), r.cubin.end()))}};
}

CompileResult compile_result_from_json(const json& j) {
  const Fields f(j, "", "compile answer");
  f.only({"status", "message", "info", "cubin"});
  CompileResult r;
  r.status = status_from_json(f, "status");
  r.message = f.text("message");
  r.info = compile_info_from_json(f.object("info"));
  r.cubin = f.bytes("cubin");
  return r;
}

}  // namespace evotune
