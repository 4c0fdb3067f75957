// A space that extends another: read as its base's document with its own members and Overrides, stored as
// that resolved document, and refused in one line where it names something the base does not have.
#include "space/space_extends.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace space_extends_test {

using testing::load_error;
using testing::TempSpaces;

const ArgumentDecl& argument(const SearchSpace& space, const std::string& name) {
  for (const auto& decl : space.arguments())
    if (decl.name == name) return decl;
  throw Error("no argument " + name);
}

// The repository's bf16 GEMM twin: the fp16 space with its own name, element types, option and tolerance.
TEST(SpaceExtends, TheBf16GemmTwinIsTheFp16SpaceWithItsOverrides) {
  const auto base = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const auto twin = SearchSpace::load("search_spaces/gemm_wgmma_bf16.json");
  EXPECT_EQ(twin.name(), "gemm_wgmma_bf16");
  for (const char* name : {"A", "B", "bias", "D", "A_staged", "B_staged"}) {
    EXPECT_EQ(argument(base, name).dtype, DType::f16) << name;
    EXPECT_EQ(argument(twin, name).dtype, DType::bf16) << name;
  }
  EXPECT_EQ(twin.compiler_options(), (std::vector<std::string>{"-std=c++17", "-DBF16=1"}));
  EXPECT_EQ(twin.parameters().size(), base.parameters().size());
  EXPECT_EQ(twin.seeds().size(), base.seeds().size()) << "the base's Seeds";
  // What is stored (and hashed) is the resolved document, which stands alone.
  const auto stored = nlohmann::ordered_json::parse(twin.json_text());
  EXPECT_FALSE(stored.contains("Extends"));
  EXPECT_FALSE(stored.contains("Overrides"));
  EXPECT_EQ(stored["KernelSpecification"]["Arguments"][0]["Type"], "bfloat16");
  EXPECT_NE(twin.hash(), base.hash());
}

// Members replace the base's whole; Overrides reach one field, through lists by Name or index; a chain of
// bases resolves from the first.
TEST(SpaceExtends, MembersAndOverridesAndChains) {
  TempSpaces spaces;
  spaces.write_from(
      "row_sum", [](auto&) {}, "row_sum.json");
  spaces.write_text("middle.json", R"({"Extends": "row_sum.json", "Name": "middle",
    "Overrides": {"ConfigurationSpace.TuningParameters(SPLITS).Values": [1, 2]}})");
  const auto last =
      SearchSpace::load(spaces.write_text("last.json", R"({"Extends": "middle.json", "Name": "last",
    "Overrides": {"KernelSpecification.CompilerOptions": ["-std=c++17", "-DWIDE=1"], "Validation.AbsoluteTolerance": 0.5}})"));
  EXPECT_EQ(last.name(), "last");
  const auto& splits = last.parameters()[1];
  ASSERT_EQ(splits.name, "SPLITS");
  EXPECT_EQ(splits.values, (std::vector<ParamValue>{1, 2}));
  const auto stored = nlohmann::ordered_json::parse(last.json_text());
  EXPECT_EQ(stored["Validation"]["AbsoluteTolerance"], 0.5);
  EXPECT_EQ(last.compiler_options(), (std::vector<std::string>{"-std=c++17", "-DWIDE=1"}));
}

// Each refusal names the file and the field (scripts/space_doc.py says the same:
// tests/scripts/space_doc_test.py).
TEST(SpaceExtends, WhatTheBaseDoesNotHaveIsRefusedInOneLine) {
  TempSpaces spaces;
  spaces.write_from(
      "row_sum", [](auto&) {}, "row_sum.json");
  const auto error = [&](const std::string& overrides) {
    return load_error(spaces.write_text(
        "child.json", R"({"Extends": "row_sum.json", "Name": "child", "Overrides": )" + overrides + "}"));
  };
  const std::string file = (spaces.dir() / "child.json").string();
  EXPECT_EQ(error(R"({"Validation.Nope": 1})"),
            file + ": Overrides.Validation.Nope: the extended space has no field Validation.Nope");
  EXPECT_EQ(
      error(R"({"KernelSpecification.Arguments(z).Type": "float"})"),
      file +
          ": Overrides.KernelSpecification.Arguments(z).Type: KernelSpecification.Arguments has no element "
          "named 'z'");
  EXPECT_EQ(error(R"({"Seeds[0].BLOCK": 64})"),
            file + ": Overrides.Seeds[0].BLOCK: the extended space has no field Seeds");
  EXPECT_EQ(load_error(spaces.write_text("child.json", R"({"Extends": "../row_sum.json", "Name": "c"})")),
            file +
                ": Extends: expected the file name of a space in the same folder (the base's relative paths "
                "are read from there), got \"../row_sum.json\"");
}

}  // namespace space_extends_test
}  // namespace evotune
