// `evotune check` lists the configs whose wgmmas ptxas serialised (C7514), with its reason: a kernel reading
// a wgmma's accumulators before waiting for it compiles and computes correctly, but loses the overlap.
#include <gtest/gtest.h>

#include "space/space_fixture.hpp"
#include "tools/check_space.hpp"

namespace evotune {
namespace check_wgmma_serialized_test {

using testing::kSpaces;

TEST(CheckWgmmaSerialized, ConfigsWhoseWgmmasPtxasSerialisedAreListedWithTheReason) {
  const CheckReport early = check_space(kSpaces / "wgmma_serialized.json", "READ_EARLY=1", "sm_90", 2, 0);
  EXPECT_TRUE(early.failures.empty());
  EXPECT_EQ(early.compiled, 2);
  ASSERT_EQ(early.serialized_wgmma.size(), 2u);
  EXPECT_EQ(early.serialized_wgmma[0].config.at("UNUSED"), 0);  // in the order of the configs
  EXPECT_EQ(early.serialized_wgmma[1].config.at("UNUSED"), 1);
  for (const CheckSerialized& serialized : early.serialized_wgmma)
    EXPECT_NE(serialized.reason.find("accumulator registers"), std::string::npos) << serialized.reason;

  const CheckReport waited = check_space(kSpaces / "wgmma_serialized.json", "READ_EARLY=0", "sm_90", 2, 0);
  EXPECT_EQ(waited.compiled, 2);
  EXPECT_TRUE(waited.serialized_wgmma.empty());
}

}  // namespace check_wgmma_serialized_test
}  // namespace evotune
