// The community's T1 tuning format (BAT, Kernel Tuner) read as it is: a T1 document converted into the
// equivalent evotune space document, the one place that knows T1. `evotune convert` writes the result;
// read_space_file converts a T1 file the same way before reading it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace evotune {

// T1 or evotune's own format: a T1 document has a KernelSpecification and none of the top-level fields only
// evotune's format has: Name (T1 names the benchmark in General.BenchmarkName), Reference (T1 has no
// reference kernel), Problem, Expressions, Validation, Work.
bool is_t1_document(const nlohmann::ordered_json& document);

struct T1Conversion {
  nlohmann::ordered_json space;      // an evotune space document (docs/search-space-format.md)
  std::vector<std::string> ignored;  // field paths accepted without effect on what is measured
};

// Throws SpaceError "LABEL: Field.Path: what is wrong" for anything T1 allows that evotune cannot honour
// (an unsupported Python construct, an unknown field, a Language other than CUDA, ...).
T1Conversion convert_t1(const nlohmann::ordered_json& document, const std::string& label);

}  // namespace evotune
