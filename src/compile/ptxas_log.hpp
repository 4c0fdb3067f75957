// Reads NVRTC's log: resource usage from `ptxas -v`, and why a compilation failed.
#pragma once

#include <map>
#include <string>

#include "core/outcome.hpp"
#include "core/status.hpp"

namespace evotune {

// Registers, static shared memory, stack frame and spills of kernel_name as `-Xptxas=-v` reports them
// ("Used 9 registers, used 1 barriers, 1024 bytes smem", "0 bytes stack frame, 0 bytes spill stores, ...").
// When kernel_name is empty or the log has no entry for it, the largest value of each field over all entries.
// Only those five fields of the result are set.
CompileInfo parse_ptxas_log(const std::string& log, const std::string& kernel_name);
// The same fields for every function the log reports on, by name (a variant of several kernels has one
// entry per kernel; lines before the first function name are under "").
std::map<std::string, CompileInfo> parse_ptxas_functions(const std::string& log);
// The entry of kernel `name` in such a map: under its own name (extern "C") or its C++ mangling
// (core/kernel_symbol.hpp); nullptr when there is none.
const CompileInfo* find_function(const std::map<std::string, CompileInfo>& functions,
                                 const std::string& name);

// ptxas's reason for serialising a kernel's wgmma.mma_async instructions, "" when the log gives none: its
// C7514 "Potential Performance Loss: wgmma.mma_async instructions are serialized due to <reason> in the
// function '<kernel>'" (e.g. non-wgmma instructions reading a wgmma's accumulators before it is waited for).
// Such a variant computes correctly, but each of its wgmmas waits for the one before: for a Hopper kernel
// that overlaps its tensor-core batches with other work, usually far slower than intended.
std::string wgmma_serialization(const std::string& log);

// The status and one-line message of a failed compilation: resource_error for ptxas running out of a
// resource (shared, local or parameter space; NVRTC 13 fails static shared memory over 48 KB with no
// message, so that case is read from `usage`), else compile_error with the first error line of the log.
struct CompileFailure {
  Status status = Status::compile_error;
  std::string message;
};
CompileFailure diagnose_failure(const std::string& log, const CompileInfo& usage);

}  // namespace evotune
