// Compile requests, results and resource usage as they cross the pipe to a compiler process.
#include "compile/compile_wire.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace evotune {
namespace {

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

void expect_same(const CompileInfo& a, const CompileInfo& b) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.static_smem_bytes, b.static_smem_bytes);
  EXPECT_EQ(a.spill_store_bytes, b.spill_store_bytes);
  EXPECT_EQ(a.spill_load_bytes, b.spill_load_bytes);
  EXPECT_EQ(a.stack_frame_bytes, b.stack_frame_bytes);
  EXPECT_EQ(a.compile_ms, b.compile_ms);
  ASSERT_EQ(a.phases.has_value(), b.phases.has_value());
  if (a.phases) {
    EXPECT_EQ(a.phases->frontend_ms, b.phases->frontend_ms);
    EXPECT_EQ(a.phases->nvvm_ms, b.phases->nvvm_ms);
    EXPECT_EQ(a.phases->ptxas_ms, b.phases->ptxas_ms);
  }
  EXPECT_EQ(a.from_cache, b.from_cache);
  EXPECT_EQ(a.log, b.log);
}

TEST(CompileWire, CompileInfoRoundTrips) {
  expect_same(compile_info_from_json(through_cbor(to_json(full_info()))), full_info());
  expect_same(compile_info_from_json(to_json(CompileInfo{})), CompileInfo{});
  json without_phases = to_json(full_info());  // an answer of a compiler from before the phase times
  without_phases.erase("phases");
  EXPECT_FALSE(compile_info_from_json(without_phases).phases);
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
  expect_same(r.info, original.info);
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
  expect_same(r.info, original.info);
}

TEST(CompileWire, MalformedMessagesThrow) {
  EXPECT_THROW(compile_request_from_json({{"source", "x"}}), json::exception);
  json unknown = to_json(CompileResult{});
  unknown["status"] = "melted";
  EXPECT_THROW(compile_result_from_json(unknown), Error);
  json text_cubin = to_json(CompileResult{});
  text_cubin["cubin"] = "ELF";
  EXPECT_THROW(compile_result_from_json(text_cubin), json::exception);
  json no_info = to_json(CompileResult{});
  no_info.erase("info");
  EXPECT_THROW(compile_result_from_json(no_info), json::exception);
}

}  // namespace
}  // namespace evotune
