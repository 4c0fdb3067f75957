// `evotune check` of a space with a DerivedInputs kernel: compiled beside the reference, and a kernel that
// does not compile, or lacks the named kernel, is the space's failure.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "space/space_fixture.hpp"
#include "tools/check_space.hpp"

namespace evotune {
namespace check_derived_inputs_test {

using testing::kSpaces;

// derived_inputs.json with the DerivedInputs kernel's source `derive` (file derive.cu) and name `name`.
std::filesystem::path with_derive(const testing::TempSpaces& spaces, const std::string& derive,
                                  const std::string& name) {
  std::ifstream in(kSpaces / "derived_inputs.json");
  auto json = nlohmann::ordered_json::parse(in);
  json["KernelSpecification"]["KernelFile"] =
      std::filesystem::absolute(kSpaces / "derived_inputs.cu").string();
  json["Reference"]["KernelFile"] = std::filesystem::absolute(kSpaces / "derived_inputs_ref.cu").string();
  json["DerivedInputs"]["KernelFile"] = "derive.cu";
  json["DerivedInputs"]["KernelName"] = name;
  spaces.write_text("derive.cu", derive);
  return spaces.write_text("space.json", json.dump(2));
}

TEST(CheckDerivedInputs, TheSpaceAndItsDerivedKernelCompile) {
  const CheckReport report = check_space(kSpaces / "derived_inputs.json", "", "sm_90", 2, 0);
  EXPECT_EQ(report.valid_configs, 4);
  EXPECT_EQ(report.compiled, 4);
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().message;
}

TEST(CheckDerivedInputs, ADerivedKernelThatDoesNotCompileFailsTheSpace) {
  testing::TempSpaces spaces;
  const auto path = with_derive(
      spaces, "extern \"C\" __global__ void derive_y(const float* x, float* y, int n) { y = 1.0f; }\n",
      "derive_y");
  const CheckReport report = check_space(path, "", "sm_90", 2, 0);
  EXPECT_EQ(report.compiled, 4);  // the variants are not at fault
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].status, Status::compile_error);
  EXPECT_TRUE(report.failures[0].config.empty());
  EXPECT_EQ(report.failures[0].message.rfind("DerivedInputs: ", 0), 0u) << report.failures[0].message;
}

TEST(CheckDerivedInputs, AKernelNameTheModuleLacksFailsTheSpace) {
  testing::TempSpaces spaces;
  const auto path = with_derive(
      spaces, "extern \"C\" __global__ void derive_y(const float* x, float* y, int n) {}\n", "derive_z");
  const CheckReport report = check_space(path, "", "sm_90", 2, 0);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].message, "DerivedInputs: the compiled module has no kernel 'derive_z'");
}

}  // namespace check_derived_inputs_test
}  // namespace evotune
