// The expression language on top of muparser: our own small grammar (no trigonometry, no constants) with
// integer helpers that flag invalid operands instead of throwing, so one bad config never stops a search.
#include "space/expression.hpp"

#include <muParserBase.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>

namespace evotune {
namespace {

constexpr std::array<std::string_view, 10> kFunctions{"cdiv", "div",   "min",  "max", "abs",
                                                      "sqrt", "floor", "ceil", "not", "ispow2"};

// Set by an integer operation with invalid operands during one evaluate() call.
thread_local bool invalid_operation = false;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_integer(double x) { return std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9.0e15; }

bool integer_operands(double a, double b) {
  if (is_integer(a) && is_integer(b) && b != 0) return true;
  invalid_operation = true;
  return false;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

double cdiv_fn(double a, double b) {
  if (!integer_operands(a, b)) return kNaN;
  return static_cast<double>(-floor_div(-static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)));
}
double div_fn(double a, double b) {
  if (!integer_operands(a, b)) return kNaN;
  return static_cast<double>(floor_div(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)));
}
double mod_fn(double a, double b) {
  if (!integer_operands(a, b)) return kNaN;
  const auto ia = static_cast<std::int64_t>(a);
  const auto ib = static_cast<std::int64_t>(b);
  return static_cast<double>(ia - ib * floor_div(ia, ib));
}
double ispow2_fn(double x) {
  if (!is_integer(x) || x <= 0) return 0;
  const auto i = static_cast<std::int64_t>(x);
  return (i & (i - 1)) == 0 ? 1 : 0;
}
double not_fn(double x) { return x == 0 ? 1 : 0; }
double abs_fn(double x) { return std::fabs(x); }
double sqrt_fn(double x) { return std::sqrt(x); }
double floor_fn(double x) { return std::floor(x); }
double ceil_fn(double x) { return std::ceil(x); }
double negate_fn(double x) { return -x; }
double identity_fn(double x) { return x; }
// Decimal literals: 16, 0.5, 1e6. A name never starts with a digit, so a leading digit or '.' means a number.
int read_number(const char* text, int* position, double* value) {
  const char* begin = text;
  if (!std::isdigit(static_cast<unsigned char>(*begin)) && *begin != '.') return 0;
  const char* end = begin + std::char_traits<char>::length(begin);
  const auto [stop, error] = std::from_chars(begin, end, *value);
  if (error != std::errc()) return 0;
  *position += static_cast<int>(stop - begin);
  return 1;
}
double min_fn(const double* args, int count) { return *std::min_element(args, args + count); }
double max_fn(const double* args, int count) { return *std::max_element(args, args + count); }

}  // namespace

// muparser's base parser with only our operators and functions (in a named namespace: Expression::Impl
// holds one, and a member's type may not be file-local where this file is part of a unity build's unit).
namespace expression_grammar {

class Grammar : public mu::ParserBase {
 public:
  Grammar() {
    AddValIdent(read_number);
    InitCharSets();
    InitFun();
    InitConst();
    InitOprt();
  }

 protected:
  void InitCharSets() override {
    DefineNameChars("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    DefineOprtChars("+-*^/?<>=!%&|");
    DefineInfixOprtChars("+-");
  }
  void InitFun() override {
    DefineFun("cdiv", cdiv_fn, false);  // not folded: the invalid-operand flag must be raised at run time
    DefineFun("div", div_fn, false);
    DefineFun("min", min_fn);
    DefineFun("max", max_fn);
    DefineFun("abs", abs_fn);
    DefineFun("sqrt", sqrt_fn);
    DefineFun("floor", floor_fn);
    DefineFun("ceil", ceil_fn);
    DefineFun("not", not_fn);
    DefineFun("ispow2", ispow2_fn);
  }
  void InitConst() override {}
  void InitOprt() override {
    DefineInfixOprt("-", negate_fn);
    DefineInfixOprt("+", identity_fn);
    DefineOprt("%", mod_fn, mu::prMUL_DIV, mu::oaLEFT, false);
  }
};

}  // namespace expression_grammar

namespace {

// muparser reports an unknown function as a misplaced parenthesis; name it instead.
std::string explain(const std::string& text, const mu::ParserError& error) {
  static const std::regex call(R"(([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
    const std::string name = (*it)[1].str();
    if (!is_function_name(name)) return "unknown function '" + name + "'";
  }
  return "syntax error: " + error.GetMsg();
}

}  // namespace

std::size_t VariableTable::add(const std::string& name) {
  if (slots_.count(name)) throw ExpressionError("name '" + name + "' defined twice");
  values_.push_back(0.0);
  slots_.emplace(name, values_.size() - 1);
  return values_.size() - 1;
}

std::optional<std::size_t> VariableTable::find(const std::string& name) const {
  const auto it = slots_.find(name);
  if (it == slots_.end()) return std::nullopt;
  return it->second;
}

struct Expression::Impl {
  std::string text;
  std::vector<std::string> names;
  expression_grammar::Grammar parser;
};

Expression::Expression(std::string text) : impl_(std::make_unique<Impl>()) {
  impl_->text = std::move(text);
  if (impl_->text.find_first_not_of(" \t\n") == std::string::npos) throw ExpressionError("empty expression");
  try {
    impl_->parser.SetExpr(impl_->text);
    for (const auto& [name, address] : impl_->parser.GetUsedVar()) impl_->names.push_back(name);
  } catch (const mu::ParserError& error) {
    throw ExpressionError(explain(impl_->text, error));
  }
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

const std::string& Expression::text() const { return impl_->text; }
const std::vector<std::string>& Expression::names() const { return impl_->names; }

void Expression::bind(VariableTable& table) {
  try {
    for (const auto& name : impl_->names) {
      const auto slot = table.find(name);
      if (!slot) throw ExpressionError("unknown name '" + name + "'");
      impl_->parser.DefineVar(name, table.address(*slot));
    }
    impl_->parser.Eval();  // compiles to bytecode now, so later evaluations only run it
  } catch (const mu::ParserError& error) {
    throw ExpressionError(explain(impl_->text, error));
  }
}

double Expression::evaluate() const {
  invalid_operation = false;
  const double value = impl_->parser.Eval();
  return invalid_operation ? kNaN : value;
}

bool is_function_name(std::string_view name) {
  return std::find(kFunctions.begin(), kFunctions.end(), name) != kFunctions.end();
}

bool is_c_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace evotune
