// Parsing of recorded NVRTC 13 / ptxas logs and the diagnosis of failed compilations.
#include "compile/ptxas_log.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace ptxas_log_test {

// Recorded from NVRTC 13.0 with -Xptxas=-v: two kernels in one module.
const char* kTwoKernels =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
    "ptxas info    : Function properties for k2\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 2.323 ms\n"
    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
    "ptxas info    : Function properties for k\n"
    "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 72 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
    "ptxas info    : Compile time = 1.915 ms\n";

TEST(PtxasLog, ReadsTheNamedKernel) {
  const CompileInfo k = parse_ptxas_log(kTwoKernels, "k");
  EXPECT_EQ(k.registers, 72);
  EXPECT_EQ(k.static_smem_bytes, 1024);
  EXPECT_EQ(k.stack_frame_bytes, 16);
  EXPECT_EQ(k.spill_store_bytes, 8);
  EXPECT_EQ(k.spill_load_bytes, 4);

  const CompileInfo k2 = parse_ptxas_log(kTwoKernels, "k2");
  EXPECT_EQ(k2.registers, 10);
  EXPECT_EQ(k2.static_smem_bytes, 0);
  EXPECT_EQ(k2.spill_store_bytes, 0);
}

TEST(PtxasLog, UnknownKernelGivesTheLargestUsage) {
  const CompileInfo info = parse_ptxas_log(kTwoKernels, "not_there");
  EXPECT_EQ(info.registers, 72);
  EXPECT_EQ(info.static_smem_bytes, 1024);
}

TEST(PtxasLog, NoKernelNameGivesTheLargestUsage) {
  const CompileInfo info = parse_ptxas_log(kTwoKernels, "");
  EXPECT_EQ(info.registers, 72);
  EXPECT_EQ(info.stack_frame_bytes, 16);
}

TEST(PtxasLog, EmptyLogGivesZeros) {
  const CompileInfo info = parse_ptxas_log("", "k");
  EXPECT_EQ(info.registers, 0);
  EXPECT_EQ(info.static_smem_bytes, 0);
}

TEST(PtxasLog, FrontEndErrorIsACompileError) {
  const char* log =
      "kernel.cu(1): warning #177-D: variable \"x\" was declared but never referenced\n"
      "kernel.cu(3): error: expected a \";\"\n"
      "  y[0] = 1 }\n"
      "1 error detected in the compilation of \"kernel.cu\".\n";
  const CompileFailure failure = diagnose_failure(log, parse_ptxas_log(log, "bad"));
  EXPECT_EQ(failure.status, Status::compile_error);
  EXPECT_EQ(failure.message, "kernel.cu(3): error: expected a \";\"");
}

TEST(PtxasLog, PtxasErrorIsACompileError) {
  const char* log =
      "ptxas application ptx input, line 29; error   : Unknown modifier '.instr'\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n";
  const CompileFailure failure = diagnose_failure(log, {});
  EXPECT_EQ(failure.status, Status::compile_error);
  EXPECT_NE(failure.message.find("Unknown modifier"), std::string::npos);
}

TEST(PtxasLog, TooMuchSharedDataIsAResourceError) {
  const char* log =
      "ptxas error   : Entry function 'big' uses too much shared data (0x4b000 bytes, 0xc000 max)\n";
  const CompileFailure failure = diagnose_failure(log, {});
  EXPECT_EQ(failure.status, Status::resource_error);
  EXPECT_NE(failure.message.find("too much shared data"), std::string::npos);
}

TEST(PtxasLog, SilentFailureWithLargeStaticSmemIsAResourceError) {
  // NVRTC 13 fails a 300 KB static __shared__ array with only these info lines.
  const char* log =
      "ptxas info    : Compiling entry function 'big' for 'sm_90'\n"
      "ptxas info    : Used 12 registers, used 1 barriers, 307200 bytes smem\n";
  const CompileFailure failure = diagnose_failure(log, parse_ptxas_log(log, "big"));
  EXPECT_EQ(failure.status, Status::resource_error);
  EXPECT_NE(failure.message.find("307200"), std::string::npos);
}

TEST(PtxasLog, SilentFailureOtherwiseIsACompileError) {
  const CompileFailure failure = diagnose_failure("ptxas info    : 0 bytes gmem\n", {});
  EXPECT_EQ(failure.status, Status::compile_error);
  EXPECT_FALSE(failure.message.empty());
}

// Recorded from nvcc 13.0 (ptxas) for sm_90a: a kernel reading an accumulator between a wgmma's commit and
// its wait.
TEST(PtxasLog, ReadsWhyWgmmasWereSerialized) {
  const char* log =
      "ptxas info    : Used 64 registers, used 1 barriers, 8192 bytes smem\n"
      "ptxas info    : (C7517) warpgroup.wait is injected in around line 149 by compiler to allow use of "
      "registers "
      "defined by GMMA in function 'wgmma_serialized'\n"
      "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
      "to non "
      "wgmma instructions reading accumulator registers of  a wgmma between start and end of the pipeline "
      "stage in "
      "the function 'wgmma_serialized'\n";
  EXPECT_EQ(
      wgmma_serialization(log),
      "due to non wgmma instructions reading accumulator registers of a wgmma between start and end of the "
      "pipeline stage");
  EXPECT_EQ(wgmma_serialization(kTwoKernels), "");
  // The injected wait alone (C7517) is no serialisation.
  EXPECT_EQ(wgmma_serialization("ptxas info    : (C7517) warpgroup.wait is injected in around line 149\n"),
            "");
}

}  // namespace ptxas_log_test
}  // namespace evotune
