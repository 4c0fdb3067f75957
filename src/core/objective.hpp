// What a search minimises: the median time, the energy of one execution, or their product (energy-delay).
#pragma once

#include <optional>
#include <string>

#include "core/outcome.hpp"

namespace evotune {

enum class Objective { time, energy, edp };

const char* to_string(Objective objective);  // "time", "energy", "edp"
std::optional<Objective> objective_from_string(const std::string& name);
// The unit objective_value() is in: "us", "uJ", "uJ*us".
const char* objective_unit(Objective objective);
// Whether the objective needs the energy measured (NVML's energy counter around each ok variant).
inline bool needs_energy(Objective objective) { return objective != Objective::time; }

// The value to minimise for one measurement: its median time (us), its energy per execution (uJ) or their
// product; nullopt for a failure, or where what the objective needs was not measured (the worst).
std::optional<double> objective_value(Objective objective, const std::optional<TimingStats>& timing,
                                      const std::optional<EnergyStats>& energy);
inline std::optional<double> objective_value(Objective objective, const Outcome& outcome) {
  if (outcome.status != Status::ok) return std::nullopt;
  return objective_value(objective, outcome.timing, outcome.energy);
}

}  // namespace evotune
