// `evotune eval`: validates and times a kernel written elsewhere against a space's reference and buffers, in
// the same isolated GPU worker and with every check a tuned variant gets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/eval_settings.hpp"
#include "core/outcome.hpp"

namespace evotune {

struct KernelFileRequest {
  std::filesystem::path kernel_file;
  std::filesystem::path space_file;
  std::string problem;      // "B=1,S=512" overrides of the space's sizes
  std::string params;       // "BLOCK_M=64,..." for the space's launch expressions; unnamed ones: first value
  std::string kernel_name;  // empty: the space's KernelName
  int device = 0;
  EvalSettings eval;
  std::uint64_t seed = 1;                   // the validation inputs' seed
  std::vector<std::string> worker_command;  // how to start a GPU worker: {evotune binary, "worker"}
};

struct KernelFileResult {
  std::string space;
  std::string kernel_name;
  std::string arch;
  Sizes problem;
  Config params;
  DeviceInfo device;
  double reference_ms = 0;
  Outcome outcome;  // status, reason, compile details, error figures, timing
  // The kernels the variant launched, in order, each with the resources ptxas reported for it
  // (outcome.compile has the first one's): more than one for a space of several launches.
  struct Launched {
    std::string kernel;
    CompileInfo info;
    bool programmatic = false;  // launched as a programmatic dependent of the one before (on this device)
  };
  std::vector<Launched> launched;
  double tflops = 0, gbps = 0;  // from the space's Work formulas, for an ok outcome
};

// The kernel file is compiled as the space's variants are (its options, the arch of the GPU, #define lines
// for the params and the compile-time sizes), launched with the space's geometry for `params`, validated
// in every round on fresh inputs against the reference, and timed. A kernel that does not compile or fails
// is a result with its status; set-up problems (no GPU, a bad space, an unknown parameter, a reference that
// does not run) throw Error.
KernelFileResult evaluate_kernel_file(const KernelFileRequest& request);

}  // namespace evotune
