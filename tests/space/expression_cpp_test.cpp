// Expressions as C++: the text of the translation, and the translated expressions compiled with the host
// compiler giving the evaluator's values (integer helpers, NaN on invalid operands, precedence, literals).
#include "space/expression_cpp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "space/expression.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace expression_cpp_test {

std::string same(const std::string& name) { return name; }

TEST(ExpressionCpp, NumbersAreDoublesAndFunctionsAreQualified) {
  EXPECT_EQ(expression_cpp("1 / sqrt(D)", same), "1.0 / evotune_expr::sqrt(D)");
  EXPECT_EQ(expression_cpp("cdiv(S, 64 * W) + 0.5 + 1e3", same),
            "evotune_expr::cdiv(S, 64.0 * W) + 0.5 + 1e3");
  EXPECT_EQ(expression_cpp("not(A) || B", same), "!(A) || B");
  EXPECT_EQ(expression_cpp("N", [](const std::string& name) { return "size_" + name; }), "size_N");
}

TEST(ExpressionCpp, ThePowerOperatorAndBadTextAreRefused) {
  EXPECT_THROW(expression_cpp("2 ^ N", same), ExpressionError);
  EXPECT_THROW(expression_cpp("1 +", same), ExpressionError);
  EXPECT_THROW(expression_cpp("log(N)", same), ExpressionError);
  EXPECT_THROW(expression_cpp("S >= 1000 == 1", same), ExpressionError) << "C++ ranks >= above ==";
  EXPECT_EQ(expression_cpp("(S >= 1000) == 1 && A != B || C < D", same),
            "(S >= 1000.0) == 1.0 && A != B || C < D");
}

// Each expression evaluated by the evaluator and by the compiled C++ at the same variable values.
TEST(ExpressionCpp, CompiledExpressionsGiveTheEvaluatorsValues) {
  const std::vector<std::string> expressions{
      "1 / 4",
      "cdiv(S, BM) * BM",
      "div(S, 3) + S % 7 - (-S) % 7",
      "S % 0",
      "cdiv(S, 2.5)",
      "W == 3 ? 32 : 24",
      "not(W) || S > 100 && W != 2",
      "min(S, 7, BM) + max(1, W) * abs(-2)",
      "floor(S / 7) + ceil(S / 7) + ispow2(BM) + ispow2(S)",
      "2 * D * (BM + 2 * W * 64) + 64 * (W > 1) + 1024",
      "-S + +W",
      "(S >= 1000) == 1",
  };
  const std::vector<std::pair<std::string, double>> values{{"S", 1000}, {"BM", 128}, {"W", 3}, {"D", 64}};
  VariableTable table;
  for (const auto& [name, value] : values) table.set(table.add(name), value);
  std::ostringstream program;
  program << expression_cpp_prelude() << "#include <cstdio>\nint main() {\n";
  for (const auto& [name, value] : values)
    program << "  const evotune_expr::value " << name << " = " << value << ";\n";
  for (const auto& text : expressions)
    program << "  std::printf(\"%.17g\\n\", evotune_expr::value(" << expression_cpp(text, same) << ").v);\n";
  program << "}\n";
  testing::TempSpaces folder;
  const auto source = folder.write_text("expressions.cpp", program.str());
  const auto binary = folder.dir() / "expressions";
  const auto output = folder.dir() / "values.txt";
  // No -Werror: -Wparentheses flags mixes like "a || b && c", which are the space file's own text.
  const std::string build = "c++ -std=c++17 -Wall " + source.string() + " -o " + binary.string();
  ASSERT_EQ(std::system(build.c_str()), 0) << program.str();
  ASSERT_EQ(std::system((binary.string() + " > " + output.string()).c_str()), 0);
  std::ifstream in(output);
  for (const auto& text : expressions) {
    Expression expression(text);
    expression.bind(table);
    const double expected = expression.evaluate();
    std::string line;
    ASSERT_TRUE(std::getline(in, line)) << text;
    const double got = std::strtod(line.c_str(), nullptr);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(got)) << text << " gave " << line;
    else
      EXPECT_DOUBLE_EQ(got, expected) << text;
  }
}

}  // namespace expression_cpp_test
}  // namespace evotune
