// The JSON form of compile requests and results, for compiles that run in a child process.
#pragma once

#include <nlohmann/json.hpp>

#include "compile/compiler.hpp"

namespace evotune {

// A malformed message throws Error naming the field (through the core field reader).
nlohmann::json to_json(const CompileRequest& request);
CompileRequest compile_request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const CompileResult& result);  // the cubin travels as binary
CompileResult compile_result_from_json(const nlohmann::json& json);

}  // namespace evotune
