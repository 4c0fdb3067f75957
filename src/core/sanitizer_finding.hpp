// What compute-sanitizer found when one variant ran under one of its tools.
#pragma once

#include <string>

namespace evotune {

struct SanitizerFinding {
  std::string tool;     // memcheck, racecheck, synccheck or initcheck
  std::string verdict;  // clean, findings, or failed (the tool did not finish: the reason is the summary)
  int errors = 0;       // as the tool's summary line counts them
  int warnings = 0;     // racecheck's warnings; 0 for the other tools
  std::string summary;  // the first finding as one line, or why the tool failed
  std::string report;   // the tool's own log, its line prefixes removed
  std::string
      eval_status;     // the variant's status in the evaluation the tool watched ("" when none came back)
  double seconds = 0;  // wall time of the run under the tool
};

}  // namespace evotune
