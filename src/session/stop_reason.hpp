// Why a tuning run stopped.
#pragma once

#include <string_view>

namespace evotune {

enum class StopReason {
  finished,     // the strategy had nothing more to propose, or every valid config is measured
  budget,       // the run evaluated its budget (the store keeps it as 'finished')
  time_limit,   // tune --time-limit passed: no more variants proposed (the store keeps it as 'finished')
  interrupted,  // Ctrl-C or SIGTERM: rerun the same command to go on
  failed,       // an error ended the run; the error message goes beside the reason
};

// "finished", "budget", "time limit", "interrupted", "failed": the text of the log and of the runs table.
std::string_view to_string(StopReason reason);

}  // namespace evotune
