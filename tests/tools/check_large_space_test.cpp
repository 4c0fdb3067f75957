// `evotune check --sample 0` of a space of more candidates than can be held (above
// SearchSpace::kEnumerableCandidates) whose valid configs are few, as the GEMM spaces' at any problem: every
// valid config is walked and compiled, not refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/search_space.hpp"
#include "space/space_fixture.hpp"
#include "tools/check_space.hpp"

namespace evotune {
namespace check_large_space_test {

// row_sum.json (9 valid configs) with three unused parameters of 101 values each, of which the conditions
// allow one: 9 x 101^3 = 9,272,709 candidates, 9 valid.
std::filesystem::path padded_row_sum(testing::TempSpaces& spaces) {
  return spaces.write_from("row_sum", [](auto& json) {
    auto& parameters = json["ConfigurationSpace"]["TuningParameters"];
    auto& conditions = json["ConfigurationSpace"]["Conditions"];
    for (const char* name : {"PAD_A", "PAD_B", "PAD_C"}) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (int v = 0; v <= 100; ++v) values.push_back(v);
      parameters.push_back({{"Name", name}, {"Type", "int"}, {"Values", values}, {"Description", "unused"}});
      conditions.push_back({{"Name", std::string("no_") + name},
                            {"Parameters", {name}},
                            {"Expression", std::string(name) + " == 7"},
                            {"Reason", "one value only"}});
    }
  });
}

TEST(CheckLargeSpace, EveryValidConfigOfTooManyCandidatesIsCompiled) {
  testing::TempSpaces spaces;
  const auto path = padded_row_sum(spaces);
  ASSERT_GT(SearchSpace::load(path).total_configs(), SearchSpace::kEnumerableCandidates);
  const CheckReport every = check_space(path, "", "sm_90", 2, 0);
  EXPECT_EQ(every.total_configs, 9 * 101 * 101 * 101);
  EXPECT_EQ(every.valid_configs, 9);
  EXPECT_EQ(every.sampled_configs, 9);
  EXPECT_EQ(every.compiled, 9);
  EXPECT_TRUE(every.failures.empty());
  const CheckReport sampled = check_space(path, "", "sm_90", 2, 4);
  EXPECT_EQ(sampled.valid_configs, 9);
  EXPECT_GE(sampled.sampled_configs, 4);
  EXPECT_LE(sampled.sampled_configs, 9);
}

}  // namespace check_large_space_test
}  // namespace evotune
