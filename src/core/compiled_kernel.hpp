// A kernel ready to run: its cubin and how to launch it.
#pragma once

#include <string>

#include "core/launch_spec.hpp"

namespace evotune {

struct CompiledKernel {
  std::string cubin;
  LaunchSpec launch;
};

}  // namespace evotune
