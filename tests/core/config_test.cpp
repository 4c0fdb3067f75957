// Canonical config text: stable, parseable, order-independent.
#include "core/config.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace evotune {
namespace config_test {

TEST(CanonicalJson, SameMapSameTextWhateverTheInsertionOrder) {
  Config a;
  a["BLOCK_N"] = 32;
  a["BLOCK_M"] = 64;
  Config b;
  b["BLOCK_M"] = 64;
  b["BLOCK_N"] = 32;
  EXPECT_EQ(canonical_json(a), canonical_json(b));
  EXPECT_EQ(canonical_json(a), R"({"BLOCK_M":64,"BLOCK_N":32})");
}

TEST(CanonicalJson, RoundTripsThroughParse) {
  const Config config{{"A", -3}, {"B", 1LL << 40}};
  EXPECT_EQ(parse_int_map(canonical_json(config)), config);
}

TEST(ParseIntMap, RejectsNonIntegersAndNonObjects) {
  EXPECT_THROW(parse_int_map(R"({"A":1.5})"), Error);
  EXPECT_THROW(parse_int_map("[1,2]"), Error);
  EXPECT_THROW(parse_int_map("{"), Error);
}

TEST(KeyValueText, JoinsInKeyOrder) {
  EXPECT_EQ(key_value_text({{"S", 512}, {"B", 1}}), "B=1,S=512");
  EXPECT_EQ(key_value_text({}), "");
}

}  // namespace config_test
}  // namespace evotune
