// Objectives: names and units, and the value a strategy minimises for each (time, energy, their product).
#include "core/objective.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace objective_test {

Outcome measured(double median_us, std::optional<double> uj) {
  Outcome outcome;
  outcome.timing = TimingStats{median_us, median_us, median_us, 0, median_us, median_us, 1};
  if (uj) outcome.energy = EnergyStats{*uj, *uj / median_us, 200, 1000};
  return outcome;
}

TEST(Objective, NamesAndUnitsRoundTripAndUnknownNamesAreRefused) {
  for (const Objective objective : {Objective::time, Objective::energy, Objective::edp})
    EXPECT_EQ(objective_from_string(to_string(objective)), objective);
  EXPECT_FALSE(objective_from_string("power").has_value());
  EXPECT_STREQ(objective_unit(Objective::time), "us");
  EXPECT_STREQ(objective_unit(Objective::energy), "uJ");
  EXPECT_STREQ(objective_unit(Objective::edp), "uJ*us");
  EXPECT_FALSE(needs_energy(Objective::time));
  EXPECT_TRUE(needs_energy(Objective::energy));
  EXPECT_TRUE(needs_energy(Objective::edp));
}

TEST(Objective, ValuesAreTheTimeTheEnergyOrTheirProduct) {
  const Outcome outcome = measured(4.0, 300.0);
  EXPECT_EQ(objective_value(Objective::time, outcome), 4.0);
  EXPECT_EQ(objective_value(Objective::energy, outcome), 300.0);
  EXPECT_EQ(objective_value(Objective::edp, outcome), 1200.0);
}

TEST(Objective, AFailureOrAMissingEnergyHasNoValue) {
  Outcome failed = measured(4.0, 300.0);
  failed.status = Status::wrong_result;
  for (const Objective objective : {Objective::time, Objective::energy, Objective::edp})
    EXPECT_FALSE(objective_value(objective, failed).has_value()) << to_string(objective);
  const Outcome no_energy = measured(4.0, std::nullopt);
  EXPECT_EQ(objective_value(Objective::time, no_energy), 4.0);
  EXPECT_FALSE(objective_value(Objective::energy, no_energy).has_value());
  EXPECT_FALSE(objective_value(Objective::edp, no_energy).has_value());
}

}  // namespace objective_test
}  // namespace evotune
