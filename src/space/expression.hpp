// Arithmetic expressions of space files (muparser): compiled once, then evaluated many times against a table
// of named variables whose values change between evaluations.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"

namespace evotune {

// An expression that cannot be compiled. The message says what is wrong, without a file or field.
class ExpressionError : public Error {
 public:
  using Error::Error;
};

// Named value slots that compiled expressions read. A slot's address never changes once added.
class VariableTable {
 public:
  // Adds a name and returns its slot. Throws ExpressionError if the name is already there.
  std::size_t add(const std::string& name);
  std::optional<std::size_t> find(const std::string& name) const;
  void set(std::size_t slot, double value) { values_[slot] = value; }
  double get(std::size_t slot) const { return values_[slot]; }
  double* address(std::size_t slot) { return &values_[slot]; }

 private:
  std::deque<double> values_;  // a deque never moves its elements when it grows
  std::unordered_map<std::string, std::size_t> slots_;
};

// One compiled expression. Operators: + - * / % ^ == != < <= > >= && || ?: and unary -;
// functions: cdiv, div, min, max, abs, sqrt, floor, ceil, not, ispow2.
// % (floored remainder), cdiv and div need integer operands and a non-zero divisor; otherwise the whole
// expression evaluates to NaN.
class Expression {
 public:
  // Parses the text. Throws ExpressionError on a syntax error or an unknown function.
  explicit Expression(std::string text);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  const std::string& text() const;
  // The variable names the expression reads, sorted.
  const std::vector<std::string>& names() const;
  // Binds every name to its slot; each must be in the table (ExpressionError otherwise). Call once.
  void bind(VariableTable& table);
  // Value for the table's current contents. NaN when an integer operation got invalid operands.
  double evaluate() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Function names of the expression language: not usable as variable names.
bool is_function_name(std::string_view name);
// [A-Za-z_][A-Za-z0-9_]*
bool is_c_identifier(std::string_view name);

}  // namespace evotune
