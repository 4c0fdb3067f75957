// Objectives: names, units and the value a strategy minimises.
#include "core/objective.hpp"

namespace evotune {

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::time:
      return "time";
    case Objective::energy:
      return "energy";
    case Objective::edp:
      return "edp";
  }
  return "?";
}

std::optional<Objective> objective_from_string(const std::string& name) {
  for (const Objective objective : {Objective::time, Objective::energy, Objective::edp})
    if (name == to_string(objective)) return objective;
  return std::nullopt;
}

const char* objective_unit(Objective objective) {
  switch (objective) {
    case Objective::time:
      return "us";
    case Objective::energy:
      return "uJ";
    case Objective::edp:
      return "uJ*us";
  }
  return "?";
}

std::optional<double> objective_value(Objective objective, const std::optional<TimingStats>& timing,
                                      const std::optional<EnergyStats>& energy) {
  if (!timing) return std::nullopt;
  switch (objective) {
    case Objective::time:
      return timing->median_us;
    case Objective::energy:
      if (!energy) return std::nullopt;
      return energy->uj_per_execution;
    case Objective::edp:
      if (!energy) return std::nullopt;
      return energy->uj_per_execution * timing->median_us;
  }
  return std::nullopt;
}

}  // namespace evotune
