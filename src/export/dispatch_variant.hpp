// One kernel of a dispatching export: a config compiled for one set of compile-time sizes (D=64,CAUSAL=0).
// The export (export_dispatch) lists them; the variant's code (dispatch_variant_code) is written from one.
#pragma once

#include "core/config.hpp"

namespace evotune {

struct DispatchVariant {
  Config config;
  Sizes compile_time;
  bool operator==(const DispatchVariant&) const = default;
};

}  // namespace evotune
