// Tests of the Python subset of T1 files: every construct the suite's files use, Python's semantics where
// they differ from C, the translation into evotune's expression language, and the errors for what is left
// out.
#include "space/python_expr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "space/expression.hpp"

namespace evotune {
namespace python_expr_test {

PyValue eval(const std::string& text, const PyNames& names = {}) {
  return evaluate_python(parse_python(text), names);
}

std::vector<double> numbers(const PyValue& value) {
  std::vector<double> out;
  for (const auto& element : value.list()) out.push_back(element.real());
  return out;
}

std::string python_error_of(const std::string& text, const PyNames& names = {}) {
  try {
    eval(text, names);
  } catch (const PythonError& error) {
    return error.what();
  }
  return "no error";
}

TEST(PythonExpr, ListsRangesAndComprehensions) {
  EXPECT_EQ(numbers(eval("[16, 32, 64]")), (std::vector<double>{16, 32, 64}));
  EXPECT_EQ(numbers(eval("[1, 2,]")), (std::vector<double>{1, 2}));
  EXPECT_EQ(numbers(eval("range(4)")), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(numbers(eval("list(range(1, 9))")).size(), 8u);
  EXPECT_EQ(numbers(eval("list(range(32, 1000+1, 32))")).back(), 992);
  EXPECT_EQ(numbers(eval("range(10, 0, -3)")), (std::vector<double>{10, 7, 4, 1}));
  EXPECT_EQ(numbers(eval("[2**i for i in range(0, 6)]")), (std::vector<double>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(numbers(eval("[1] + [2*i for i in range(1,11)]")).size(), 11u);
  EXPECT_EQ(numbers(eval("[i for i in range(20) if i % 7 == 0]")), (std::vector<double>{0, 7, 14}));
  EXPECT_EQ(numbers(eval("[N // 4 * k for k in [1, 2]]", {{"N", PyValue{std::int64_t{64}}}})),
            (std::vector<double>{16, 32}));
  EXPECT_EQ(eval("len(range(3, 30, 3))").real(), 9);
  EXPECT_EQ(eval("max([3, 9, 4])").real(), 9);
  EXPECT_EQ(eval("min(3, -2, 7)").real(), -2);
  EXPECT_EQ(eval("[]").list().size(), 0u);
}

TEST(PythonExpr, ArithmeticFollowsPython) {
  EXPECT_EQ(eval("7 // 2").real(), 3);
  EXPECT_EQ(eval("-7 // 2").real(), -4);
  EXPECT_EQ(eval("-7 % 3").real(), 2);
  EXPECT_EQ(eval("7 % -3").real(), -2);
  EXPECT_EQ(eval("7 / 2").real(), 3.5);
  EXPECT_TRUE(eval("4 / 2").is_real());
  EXPECT_EQ(eval("2 ** 3 ** 2").real(), 512);
  EXPECT_EQ(eval("-2 ** 2").real(), -4);
  EXPECT_EQ(eval("2 ** -1").real(), 0.5);
  EXPECT_EQ(eval("(1 + 2) * 3 - 4 // 2").real(), 7);
  EXPECT_EQ(eval("1e3 + 0.5").real(), 1000.5);
  EXPECT_EQ(eval("128 * 1024 // 8").real(), 16384);
}

TEST(PythonExpr, LogicAndComparisons) {
  EXPECT_TRUE(eval("1 < 2 < 3").truth());
  EXPECT_FALSE(eval("1 < 3 < 2").truth());
  EXPECT_TRUE(eval("not 0 and (2 >= 2 or 1 / 0)").truth());  // short-circuit: 1 / 0 never runs
  EXPECT_EQ(eval("0 or 5").real(), 5);
  EXPECT_EQ(eval("3 and 0").real(), 0);
  EXPECT_TRUE(eval("True != False").truth());
  EXPECT_TRUE(eval("4 in [1, 4]").truth());
  EXPECT_TRUE(eval("5 not in range(5)").truth());
  EXPECT_EQ(eval("8 if 2 > 1 else 9").real(), 8);
  EXPECT_TRUE(eval("VECTOR_TYPE == 1 and USE_SOA == 0 or VECTOR_TYPE == 1",
                   {{"VECTOR_TYPE", PyValue{std::int64_t{1}}}, {"USE_SOA", PyValue{std::int64_t{1}}}})
                  .truth());
}

TEST(PythonExpr, UnsupportedConstructsAreNamed) {
  EXPECT_NE(
      python_error_of("[x.append(1) for x in range(2)]").find("attribute access '.append' is not supported"),
      std::string::npos);
  EXPECT_NE(python_error_of("import os").find("'import' is not supported"), std::string::npos);
  EXPECT_NE(python_error_of("lambda x: x").find("'lambda' is not supported"), std::string::npos);
  EXPECT_NE(python_error_of("__import__('os')").find("string literals are not supported"), std::string::npos);
  EXPECT_NE(
      python_error_of("abs(-3)").find("call of 'abs' is not supported (allowed: range, list, len, min, max)"),
      std::string::npos);
  EXPECT_NE(python_error_of("open(1)").find("call of 'open' is not supported"), std::string::npos);
  EXPECT_NE(python_error_of("BLOCK * 2").find("unknown name 'BLOCK'"), std::string::npos);
  EXPECT_NE(python_error_of("(1, 2)").find("tuples are not supported"), std::string::npos);
  EXPECT_NE(python_error_of("x[0]", {{"x", PyValue{std::int64_t{1}}}}).find("unexpected '['"),
            std::string::npos);
  EXPECT_NE(python_error_of("[i for i in range(2) for j in range(2)]").find("nested comprehensions"),
            std::string::npos);
  EXPECT_NE(python_error_of("1 +").find("expression ends too early"), std::string::npos);
  EXPECT_NE(python_error_of("(1 + 2").find("expected ')'"), std::string::npos);
  EXPECT_NE(python_error_of("a; b").find("unsupported character ';'"), std::string::npos);
  EXPECT_NE(python_error_of("x is None").find("'is' is not supported"), std::string::npos);
  EXPECT_NE(python_error_of("5 // 0").find("integer division by zero"), std::string::npos);
  EXPECT_NE(python_error_of("list(range(0, 100000000))").find("longer than ten million"), std::string::npos);
}

// The native translation gives Python's value for every combination of a few small values.
TEST(PythonExpr, NativeTranslationKeepsTheValue) {
  // {text, numeric}: numeric ones must give the same number, the others the same truth (and/or give an
  // operand in Python, 1 or 0 in evotune's language).
  const std::vector<std::pair<std::string, bool>> texts = {
      {"(KWG % ((MDIMC * NDIMC) // MDIMA)) == 0", false},
      {"A * B <= 256 and not A < B", false},
      {"A == 1 and B == 0 or A == 1", false},
      {"1 <= A < B <= 8", false},
      {"A in [1, 4] or B not in [2, 3]", false},
      {"-A // 3 + B % -4 + A ** 2 / 4", true},
      {"max(A, B) - min(A, 2) if A > B else 7", true},
      {"(128 * 1024 // A) // B", true},
  };
  const std::set<std::string> names = {"A", "B", "KWG", "MDIMC", "NDIMC", "MDIMA"};
  std::mt19937_64 rng(7);
  for (const auto& [text, numeric] : texts) {
    VariableTable table;
    std::map<std::string, std::size_t> slots;
    for (const auto& name : names) slots[name] = table.add(name);
    Expression native(python_to_native(parse_python(text), names));
    native.bind(table);
    for (int trial = 0; trial < 200; ++trial) {
      PyNames values;
      for (const auto& name : names) {
        const auto value = static_cast<std::int64_t>(rng() % 8) + 1;
        values[name] = PyValue{value};
        table.set(slots[name], static_cast<double>(value));
      }
      PyValue python;
      try {
        python = evaluate_python(parse_python(text), values);
      } catch (const PythonError&) {  // Python raises on a zero divisor; evotune's value is NaN
        EXPECT_TRUE(std::isnan(native.evaluate())) << text << " -> " << native.text();
        continue;
      }
      if (numeric)
        EXPECT_DOUBLE_EQ(native.evaluate(), python.real()) << text << " -> " << native.text();
      else
        EXPECT_EQ(native.evaluate() != 0, python.truth()) << text << " -> " << native.text();
    }
  }
}

TEST(PythonExpr, NativeTranslationErrors) {
  const std::set<std::string> names = {"A"};
  auto error = [&](const std::string& text) {
    try {
      python_to_native(parse_python(text), names);
    } catch (const PythonError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("B + 1").find("unknown name 'B'"), std::string::npos);
  EXPECT_NE(error("[A, 2]").find("a list is not allowed where a number is expected"), std::string::npos);
  EXPECT_NE(error("len([1])").find("len() gives or reads a list"), std::string::npos);
  EXPECT_NE(error("A in range(3)").find("needs a non-empty list literal"), std::string::npos);
  EXPECT_EQ(python_to_native(parse_python("A // 2"), names, {{"A", "16"}}), "div(16, 2)");
  EXPECT_EQ(python_to_native(parse_python("A ** 2 > 3 and not A"), names), "(((A ^ 2) > 3) && not(A))");
}

}  // namespace python_expr_test
}  // namespace evotune
