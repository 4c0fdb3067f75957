// The evaluator's private types, shared by its source files: why an evaluation stopped, one ready launch.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

#include "core/status.hpp"
#include "eval/gpu_evaluator.hpp"
#include "eval/launch_args.hpp"

namespace evotune {

// `reset` says whether the context must be rebuilt before the next evaluation.
struct GpuEvaluator::Failure {
  enum class Reset { none, sticky, hung };
  Status status;
  std::string message;
  Reset reset = Reset::none;
};

// One kernel of a variant's launches, ready to go.
struct GpuEvaluator::Step {
  CUfunction function = nullptr;
  const LaunchSpec* launch = nullptr;
  std::unique_ptr<KernelArgs> args;  // KernelArgs cannot move: params() points into it
};

// How an Error begins when the space's DerivedInputs kernel fails at set-up (eval/derived_inputs.cpp).
inline constexpr const char* kDerivedInputsSpaceError =
    "the space's DerivedInputs kernel does not run (an error of the space, not of a variant): ";

// The status of a failed driver call made for a variant.
inline Status status_of(CUresult result) {
  switch (result) {
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_OUT_OF_MEMORY:
      return Status::resource_error;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return Status::timeout;
    default:
      return Status::launch_error;
  }
}

}  // namespace evotune
