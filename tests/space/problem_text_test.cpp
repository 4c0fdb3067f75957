// Tests of --problem parsing: defaults, overrides and every error.
#include "space/problem_text.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace evotune {
namespace problem_text_test {

const std::vector<SizeSpec> kSpecs{
    {"B", 1, {}, false, ""},
    {"S", 512, {}, false, ""},
    {"D", 64, {64, 128}, true, ""},
    {"CAUSAL", 0, {0, 1}, true, ""},
};

std::string problem_error_of(const std::string& text) {
  try {
    resolve_sizes(kSpecs, text);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ProblemText, DefaultsWhenEmpty) {
  const Sizes expected{{"B", 1}, {"S", 512}, {"D", 64}, {"CAUSAL", 0}};
  EXPECT_EQ(resolve_sizes(kSpecs, ""), expected);
  EXPECT_EQ(resolve_sizes(kSpecs, "  "), expected);
}

TEST(ProblemText, Overrides) {
  const Sizes sizes = resolve_sizes(kSpecs, "S=2048, D=128,CAUSAL=1");
  EXPECT_EQ(sizes, (Sizes{{"B", 1}, {"S", 2048}, {"D", 128}, {"CAUSAL", 1}}));
  EXPECT_EQ(resolve_sizes(kSpecs, "CAUSAL=0").at("CAUSAL"), 0);  // zero is fine where Values allow it
}

TEST(ProblemText, Errors) {
  EXPECT_EQ(problem_error_of("X=4"), "problem: unknown size 'X' (known: B, S, D, CAUSAL)");
  EXPECT_EQ(problem_error_of("S512"), "problem: malformed item 'S512' (expected NAME=INTEGER, e.g. S=512)");
  EXPECT_EQ(problem_error_of("S=1.5"), "problem: malformed item 'S=1.5' (expected NAME=INTEGER, e.g. S=512)");
  EXPECT_EQ(problem_error_of("S="), "problem: malformed item 'S=' (expected NAME=INTEGER, e.g. S=512)");
  EXPECT_EQ(problem_error_of("S=1,,B=2"), "problem: malformed item '' (expected NAME=INTEGER, e.g. S=512)");
  EXPECT_EQ(problem_error_of("S=0"), "problem: S=0 is not positive");
  EXPECT_EQ(problem_error_of("B=-2"), "problem: B=-2 is not positive");
  EXPECT_EQ(problem_error_of("D=96"), "problem: D=96 is not allowed (allowed: 64, 128)");
  EXPECT_EQ(problem_error_of("S=1,S=2"), "problem: size 'S' given twice");
}

// A size added later with an expression default: problems that do not name it mean what they meant.
TEST(ProblemText, ExpressionDefaultsFollowTheSizesBeforeThem) {
  const std::vector<SizeSpec> specs{{"H", 8, {}, false, ""},
                                    {"HKV", 1, {}, false, "H"},
                                    {"S", 512, {}, false, ""},
                                    {"SKV", 1, {}, false, "S"}};
  EXPECT_EQ(resolve_sizes(specs, ""), (Sizes{{"H", 8}, {"HKV", 8}, {"S", 512}, {"SKV", 512}}));
  EXPECT_EQ(resolve_sizes(specs, "H=32,S=100"), (Sizes{{"H", 32}, {"HKV", 32}, {"S", 100}, {"SKV", 100}}));
  EXPECT_EQ(resolve_sizes(specs, "H=32,HKV=8,SKV=4096"),
            (Sizes{{"H", 32}, {"HKV", 8}, {"S", 512}, {"SKV", 4096}}));
  // A problem stored or recorded before HKV and SKV were declared.
  EXPECT_EQ(complete_sizes(specs, Sizes{{"H", 4}, {"S", 7}}),
            (Sizes{{"H", 4}, {"HKV", 4}, {"S", 7}, {"SKV", 7}}));
  const std::vector<SizeSpec> halved{{"S", 512, {}, false, ""}, {"T", 1, {}, false, "S / 2"}};
  EXPECT_THROW(resolve_sizes(halved, "S=3"), Error);  // 1.5 is not a size
}

}  // namespace problem_text_test
}  // namespace evotune
