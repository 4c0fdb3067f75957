// Validation.Deterministic as an expression: which configs get the bitwise repeat, true and false as before,
// and the errors of an expression that names nothing or cannot be evaluated.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace deterministic_expression_test {

using testing::kSpaces;
using testing::load_error;
using testing::TempSpaces;

TEST(DeterministicExpression, EachConfigGetsTheExpressionsValue) {
  const auto space = SearchSpace::load(kSpaces / "deterministic_expression.json");
  const Sizes sizes = space.resolve_problem("");
  const DeviceInfo device = offline_device("sm_90");
  EXPECT_TRUE(space.deterministic({{"MODE", 0}, {"BLOCK", 256}}, sizes, device));
  EXPECT_TRUE(space.deterministic({{"MODE", 1}, {"BLOCK", 256}}, sizes, device));
  EXPECT_FALSE(space.deterministic({{"MODE", 2}, {"BLOCK", 256}}, sizes, device));
  EXPECT_THROW(space.deterministic({{"MODE", 3}, {"BLOCK", 256}}, sizes, device), Error);  // not a value
}

TEST(DeterministicExpression, TrueAndFalseHoldForEveryConfig) {
  TempSpaces temp;
  const DeviceInfo device = offline_device("sm_90");
  const Config config{{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}};
  const auto saxpy = SearchSpace::load(kSpaces / "saxpy.json");  // no Deterministic: true
  EXPECT_TRUE(saxpy.deterministic(config, saxpy.resolve_problem(""), device));
  const auto declared_false =
      SearchSpace::load(temp.write([](auto& json) { json["Validation"]["Deterministic"] = false; }));
  EXPECT_FALSE(declared_false.deterministic(config, declared_false.resolve_problem(""), device));
  EXPECT_FALSE(declared_false.tolerances().deterministic);
}

TEST(DeterministicExpression, ItSeesParametersAndProblemSizes) {
  TempSpaces temp;
  const auto space = SearchSpace::load(
      temp.write([](auto& json) { json["Validation"]["Deterministic"] = "VECTOR == 0 || N <= 4096"; }));
  const DeviceInfo device = offline_device("sm_90");
  const Config scalar{{"BLOCK", 64}, {"ITEMS", 4}, {"VECTOR", 0}};
  const Config vector{{"BLOCK", 64}, {"ITEMS", 4}, {"VECTOR", 1}};
  EXPECT_TRUE(space.deterministic(scalar, space.resolve_problem("N=8192"), device));
  EXPECT_TRUE(space.deterministic(vector, space.resolve_problem("N=4096"), device));
  EXPECT_FALSE(space.deterministic(vector, space.resolve_problem("N=8192"), device));
  // A number is an expression too.
  const auto zero =
      SearchSpace::load(temp.write([](auto& json) { json["Validation"]["Deterministic"] = 0; }));
  EXPECT_FALSE(zero.deterministic(scalar, zero.resolve_problem(""), device));
}

TEST(DeterministicExpression, ErrorsNameTheField) {
  TempSpaces temp;
  const auto unknown = temp.write([](auto& json) { json["Validation"]["Deterministic"] = "yes"; });
  EXPECT_EQ(load_error(unknown), unknown.string() + ": Validation.Deterministic: unknown name 'yes'");
  const auto listed = temp.write([](auto& json) { json["Validation"]["Deterministic"] = {1}; });
  EXPECT_EQ(load_error(listed), listed.string() +
                                    ": Validation.Deterministic: expected true, false or an expression over "
                                    "tuning parameters and problem "
                                    "sizes, got a list");
  const auto nan = SearchSpace::load(temp.write([](auto& json) {
    json["Validation"]["Deterministic"] = "BLOCK % (VECTOR * 2) == 0";  // VECTOR 0: a zero divisor
  }));
  try {
    nan.deterministic({{"BLOCK", 64}, {"ITEMS", 4}, {"VECTOR", 0}}, nan.resolve_problem(""),
                      offline_device("sm_90"));
    ADD_FAILURE() << "no error";
  } catch (const SpaceError& error) {
    EXPECT_EQ(std::string(error.what()),
              (temp.dir() / "space.json").string() +
                  ": Validation.Deterministic: cannot be evaluated (NaN) (problem N=4096,ALIGN=4; config "
                  "BLOCK=64,ITEMS=4,VECTOR=0)");
  }
}

}  // namespace deterministic_expression_test
}  // namespace evotune
