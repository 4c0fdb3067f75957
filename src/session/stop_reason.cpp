// The names of the stop reasons.
#include "session/stop_reason.hpp"

namespace evotune {

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::finished:
      return "finished";
    case StopReason::budget:
      return "budget";
    case StopReason::time_limit:
      return "time limit";
    case StopReason::interrupted:
      return "interrupted";
    case StopReason::failed:
      return "failed";
  }
  return "failed";
}

}  // namespace evotune
