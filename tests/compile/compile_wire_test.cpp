// Compile requests, results and resource usage as they cross the pipe to a compiler process.
#include "compile/compile_wire.hpp"

#include <gtest/gtest.h>

#include "core/core_fixture.hpp"

namespace evotune {
namespace compile_wire_test {

using nlohmann::json;

json through_cbor(const json& message) { return json::from_cbor(json::to_cbor(message)); }

CompileInfo full_info() {
  return {"sm_90a",
          96,
          16384,
          4,
          8,
          24,
          0.1 + 0.2,
          true,
          "ptxas info    : Used 96 registers\nline two",
          CompilePhases{47, 110.5, 108}};
}

TEST(CompileWire, CompileRequestRoundTrips) {
  const CompileRequest original{"#define BLOCK 128\nextern \"C\" __global__ void k(float* x) {}\n",
                                "attention_fwd.cu",
                                "k",
                                "sm_90a",
                                {"-std=c++17", "-DX=\"a b\"", ""}};
  const CompileRequest r = compile_request_from_json(through_cbor(to_json(original)));
  EXPECT_EQ(r.source, original.source);
  EXPECT_EQ(r.file_name, original.file_name);
  EXPECT_EQ(r.kernel_name, original.kernel_name);
  EXPECT_EQ(r.arch, original.arch);
  EXPECT_EQ(r.options, original.options);
  EXPECT_TRUE(compile_request_from_json(to_json(CompileRequest{})).options.empty());
}

TEST(CompileWire, CompileResultKeepsEveryCubinByte) {
  CompileResult original;
  original.status = Status::ok;
  original.info = full_info();
  original.cubin = std::string(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\xff\xfe",
      14);
  for (int i = 0; i < 256; ++i) original.cubin.push_back(static_cast<char>(i));
  const json message = to_json(original);
  EXPECT_TRUE(message.at("cubin").is_binary());
  const CompileResult r = compile_result_from_json(through_cbor(message));
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.message, "");
  EXPECT_EQ(r.cubin.size(), 14u + 256u);
  EXPECT_EQ(r.cubin, original.cubin);
  core_test::expect_same_compile(r.info, original.info);
}

TEST(CompileWire, FailedCompileResultRoundTripsWithItsMessage) {
  CompileResult original;
  original.status = Status::resource_error;
  original.message = "uses too much shared memory (0x10000 bytes, 0xc000 max)";
  original.info.arch = "sm_80";
  original.info.log = "ptxas error   : Entry function 'k' uses too much shared data";
  const CompileResult r = compile_result_from_json(through_cbor(to_json(original)));
  EXPECT_EQ(r.status, Status::resource_error);
  EXPECT_EQ(r.message, original.message);
  EXPECT_TRUE(r.cubin.empty());
  core_test::expect_same_compile(r.info, original.info);
}

TEST(CompileWire, MalformedMessagesAreOneLineNamingTheField) {
  using core_test::expect_error;
  expect_error(
      [] {
        compile_request_from_json({{"source", "x"}});
      },
      "compile request: file_name: missing required field");
  json unknown = to_json(CompileResult{});
  unknown["status"] = "melted";
  expect_error([&] { compile_result_from_json(unknown); }, "compile answer: status: unknown status 'melted'");
  json text_cubin = to_json(CompileResult{});
  text_cubin["cubin"] = "ELF";
  expect_error([&] { compile_result_from_json(text_cubin); },
               "compile answer: cubin: expected binary data, got \"ELF\"");
  json no_info = to_json(CompileResult{});
  no_info.erase("info");
  expect_error([&] { compile_result_from_json(no_info); }, "compile answer: info: missing required field");
  json bad_info = to_json(CompileResult{});
  bad_info["info"]["registers"] = "many";
  expect_error([&] { compile_result_from_json(bad_info); },
               "compile answer: info.registers: expected an integer, got \"many\"");
}

}  // namespace compile_wire_test
}  // namespace evotune
