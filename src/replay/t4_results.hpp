// The community's T4 results format (the one Kernel Tuner writes, read by autotuning analysis tools) from a
// recorded sweep: one entry per measured config, the objective being the median time in milliseconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/status.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {

// T4's "invalidity" of a status: correct, compile, runtime, timeout or correctness.
std::string_view t4_invalidity(Status status);

// {"schema_version": "1.0.0", "metadata": {...}, "results": [...]}, results in the sweep's order. A failed
// config's "time" measurement is its status name (Kernel Tuner writes its failure's name there too).
nlohmann::ordered_json t4_results(const RecordedSweep& sweep);

}  // namespace evotune
