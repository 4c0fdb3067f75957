// `evotune check` lists the configs that compile but spill registers (ptxas's spill stores), with the bytes.
#include <gtest/gtest.h>

#include "space/space_fixture.hpp"
#include "tools/check_space.hpp"

namespace evotune {
namespace check_spills_test {

using testing::kSpaces;

TEST(CheckSpills, ConfigsThatSpillAreListedWithTheirBytes) {
  // LIVE = 64 values live at once under --maxrregcount 16 spill; LIVE = 4 does not.
  const CheckReport spilling = check_space(kSpaces / "register_pressure.json", "LIVE=64", "sm_90", 2, 0);
  EXPECT_TRUE(spilling.failures.empty());
  EXPECT_EQ(spilling.compiled, 2);
  ASSERT_EQ(spilling.spills.size(), 2u);
  EXPECT_EQ(spilling.spills[0].config.at("BLOCK"), 64);  // in the order of the configs
  EXPECT_EQ(spilling.spills[1].config.at("BLOCK"), 128);
  for (const CheckSpill& spill : spilling.spills) EXPECT_GT(spill.spill_store_bytes, 0);
  EXPECT_EQ(spilling.max_spill_bytes,
            std::max(spilling.spills[0].spill_store_bytes, spilling.spills[1].spill_store_bytes));

  const CheckReport fitting = check_space(kSpaces / "register_pressure.json", "LIVE=4", "sm_90", 2, 0);
  EXPECT_EQ(fitting.compiled, 2);
  EXPECT_TRUE(fitting.spills.empty());
  EXPECT_EQ(fitting.max_spill_bytes, 0);
}

}  // namespace check_spills_test
}  // namespace evotune
