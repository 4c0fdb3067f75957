// The objective every strategy minimises.
#include "strategy/strategy.hpp"

namespace evotune {

std::optional<double> objective(const Outcome& outcome) { return objective_value(Objective::time, outcome); }

}  // namespace evotune
