// Tests of the expression language: operators, integer semantics, functions, errors and rebinding.
#include "space/expression.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace evotune {
namespace expression_test {

double eval(const std::string& text, VariableTable& table) {
  Expression expression(text);
  expression.bind(table);
  return expression.evaluate();
}

double eval(const std::string& text) {
  VariableTable table;
  return eval(text, table);
}

std::string compile_error(const std::string& text) {
  VariableTable table;
  table.add("A");
  try {
    Expression expression(text);
    expression.bind(table);
  } catch (const ExpressionError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Expression, ArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("7 / 2"), 3.5);  // real division
  EXPECT_EQ(eval("2 ^ 10"), 1024);
  EXPECT_EQ(eval("2 ^ 3 ^ 2"), 512);  // right-associative
  EXPECT_EQ(eval("-2 ^ 2"), -4);
  EXPECT_EQ(eval("+3 - -2"), 5);
  EXPECT_EQ(eval("1e3 + .5"), 1000.5);
  EXPECT_EQ(eval("2 * 7 % 4"), 2);  // % binds like *, left to right
  EXPECT_EQ(eval("1 + 7 % 4"), 4);
}

TEST(Expression, ComparisonsLogicAndTernary) {
  EXPECT_EQ(eval("3 == 3"), 1);
  EXPECT_EQ(eval("3 != 3"), 0);
  EXPECT_EQ(eval("2 < 3 && 3 <= 3 && 4 > 3 && 3 >= 3"), 1);
  EXPECT_EQ(eval("0 || 0"), 0);
  EXPECT_EQ(eval("0 || 2"), 1);
  EXPECT_EQ(eval("1 && 0"), 0);
  EXPECT_EQ(eval("1 ? 10 : 20"), 10);
  EXPECT_EQ(eval("0 ? 10 : 20"), 20);
  EXPECT_EQ(eval("4 * 2 / (1 ? 2 : 1)"), 4);
}

TEST(Expression, RemainderIsIntegerAndFloored) {
  EXPECT_EQ(eval("17 % 5"), 2);
  EXPECT_EQ(eval("16 % 4"), 0);
  EXPECT_EQ(eval("-7 % 3"), 2);  // sign of the divisor, like div
  EXPECT_EQ(eval("7 % -3"), -2);
  EXPECT_TRUE(std::isnan(eval("7 % 0")));
  EXPECT_TRUE(std::isnan(eval("7.5 % 2")));
}

TEST(Expression, IntegerDivisions) {
  EXPECT_EQ(eval("cdiv(10, 3)"), 4);
  EXPECT_EQ(eval("cdiv(9, 3)"), 3);
  EXPECT_EQ(eval("cdiv(0, 3)"), 0);
  EXPECT_EQ(eval("cdiv(-7, 2)"), -3);
  EXPECT_EQ(eval("div(10, 3)"), 3);
  EXPECT_EQ(eval("div(-7, 2)"), -4);
  EXPECT_EQ(eval("div(7, -2)"), -4);
  EXPECT_EQ(eval("div(-7, 2) * 2 + -7 % 2"), -7);
  EXPECT_TRUE(std::isnan(eval("cdiv(1, 0)")));
  EXPECT_TRUE(std::isnan(eval("div(5, 2.5)")));
  EXPECT_TRUE(std::isnan(eval("(cdiv(1.5, 1) > 0) + 1")));  // an invalid operand spoils the whole expression
}

TEST(Expression, GuardedOperandIsNotEvaluated) {
  VariableTable table;
  table.set(table.add("W"), 0);
  EXPECT_EQ(eval("W == 0 ? 0 : 64 % W", table), 0);
}

TEST(Expression, Functions) {
  EXPECT_EQ(eval("min(3, 1, 2)"), 1);
  EXPECT_EQ(eval("max(3, 5)"), 5);
  EXPECT_EQ(eval("abs(-4)"), 4);
  EXPECT_EQ(eval("sqrt(16)"), 4);
  EXPECT_EQ(eval("floor(2.7)"), 2);
  EXPECT_EQ(eval("ceil(2.1)"), 3);
  EXPECT_EQ(eval("floor(-2.5)"), -3);
  EXPECT_EQ(eval("not(0)"), 1);
  EXPECT_EQ(eval("not(5)"), 0);
  EXPECT_EQ(eval("ispow2(64)"), 1);
  EXPECT_EQ(eval("ispow2(1)"), 1);
  EXPECT_EQ(eval("ispow2(48)"), 0);
  EXPECT_EQ(eval("ispow2(0)"), 0);
  EXPECT_EQ(eval("ispow2(-4)"), 0);
  EXPECT_EQ(eval("ispow2(2.5)"), 0);
}

TEST(Expression, VariablesAreReadAtEachEvaluation) {
  VariableTable table;
  const auto m = table.add("BLOCK_M");
  const auto w = table.add("WARPS");
  Expression expression("BLOCK_M % (16 * WARPS) == 0");
  expression.bind(table);
  table.set(m, 64);
  table.set(w, 2);
  EXPECT_EQ(expression.evaluate(), 1);
  table.set(w, 3);
  EXPECT_EQ(expression.evaluate(), 0);
  table.set(m, 96);
  EXPECT_EQ(expression.evaluate(), 1);
}

TEST(Expression, ReportsNamesItReads) {
  Expression expression("cdiv(S, BLOCK_M) * H + S");
  EXPECT_EQ(expression.names(), (std::vector<std::string>{"BLOCK_M", "H", "S"}));
  EXPECT_EQ(expression.text(), "cdiv(S, BLOCK_M) * H + S");
  EXPECT_TRUE(Expression("2 * 3").names().empty());
}

TEST(Expression, Errors) {
  EXPECT_EQ(compile_error("B + 1"), "unknown name 'B'");
  EXPECT_EQ(compile_error("log2(A)"), "unknown function 'log2'");
  EXPECT_EQ(compile_error("sin(A)"), "unknown function 'sin'");
  EXPECT_EQ(compile_error("   "), "empty expression");
  EXPECT_NE(compile_error("A +").find("syntax error"), std::string::npos);
  EXPECT_NE(compile_error("A 2").find("syntax error"), std::string::npos);
  EXPECT_NE(compile_error("(A").find("syntax error"), std::string::npos);
  EXPECT_EQ(compile_error("_pi"), "unknown name '_pi'");  // no built-in constants
  EXPECT_EQ(compile_error("A * 2"), "no error");
}

TEST(VariableTable, SlotsAreStableAndNamesUnique) {
  VariableTable table;
  const auto first = table.add("A");
  double* address = table.address(first);
  for (int i = 0; i < 1000; ++i) table.add("V" + std::to_string(i));
  EXPECT_EQ(table.address(first), address);
  EXPECT_EQ(table.find("V999"), first + 1000);
  EXPECT_FALSE(table.find("missing"));
  EXPECT_THROW(table.add("A"), ExpressionError);
}

TEST(Names, IdentifiersAndFunctions) {
  EXPECT_TRUE(is_c_identifier("BLOCK_M"));
  EXPECT_TRUE(is_c_identifier("_x1"));
  EXPECT_FALSE(is_c_identifier("1X"));
  EXPECT_FALSE(is_c_identifier("BLOCK-M"));
  EXPECT_FALSE(is_c_identifier(""));
  EXPECT_TRUE(is_function_name("cdiv"));
  EXPECT_TRUE(is_function_name("ispow2"));
  EXPECT_FALSE(is_function_name("BLOCK"));
}

}  // namespace expression_test
}  // namespace evotune
