// Translating the expression language to C++: a token rewrite over text Expression has already accepted.
#include "space/expression_cpp.hpp"

#include <cctype>
#include <utility>
#include <vector>

#include "space/expression.hpp"

namespace evotune {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string expression_cpp(const std::string& expression,
                           const std::function<std::string(const std::string&)>& name_of) {
  const Expression checked(expression);  // syntax and function names, the evaluator's own verdict
  std::string out;
  // Per parenthesis depth, whether the current operand run has an equality and a relational operator: the
  // language ranks them alike (a < b == c is (a < b) == c), C++ ranks < above ==.
  std::vector<std::pair<bool, bool>> comparisons(1);
  std::size_t i = 0;
  while (i < expression.size()) {
    const char c = expression[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t end = i;
      bool real = false;
      while (end < expression.size() && (name_char(expression[end]) || expression[end] == '.' ||
                                         ((expression[end] == '+' || expression[end] == '-') &&
                                          (expression[end - 1] == 'e' || expression[end - 1] == 'E')))) {
        real |= expression[end] == '.' || expression[end] == 'e' || expression[end] == 'E';
        ++end;
      }
      const std::string number = expression.substr(i, end - i);
      out += (number.front() == '.' ? "0" : "") + number + (real ? "" : ".0");
      i = end;
    } else if (name_char(c)) {
      std::size_t end = i;
      while (end < expression.size() && name_char(expression[end])) ++end;
      const std::string name = expression.substr(i, end - i);
      if (name == "not")
        out += "!";
      else if (is_function_name(name))
        out += "evotune_expr::" + name;
      else
        out += name_of(name);
      i = end;
    } else if (c == '^') {
      throw ExpressionError("'" + expression +
                            "': the power operator ^ has no C++ form here (write the product out)");
    } else {
      const char next = i + 1 < expression.size() ? expression[i + 1] : '\0';
      auto& [equality, relational] = comparisons.back();
      if ((c == '=' || c == '!') && next == '=') equality = true;
      if ((c == '<' || c == '>')) relational = true;
      if (equality && relational)
        throw ExpressionError("'" + expression +
                              "': == or != beside < <= > >= without parentheses groups differently in C++ "
                              "(add parentheses)");
      if (c == '(') comparisons.emplace_back();
      if (c == ')' && comparisons.size() > 1) comparisons.pop_back();
      if (c == ',' || c == '?' || c == ':' || ((c == '&' || c == '|') && next == c)) comparisons.back() = {};
      const bool pair = (c == '=' || c == '!' || c == '<' || c == '>' || c == '&' || c == '|') &&
                        (next == '=' || next == c);
      out += pair ? expression.substr(i, 2) : std::string(1, c);
      i += pair ? 2 : 1;
    }
  }
  return out;
}

const char* expression_cpp_prelude() {
  return R"(#include <cmath>
#include <cstdint>

// The space file's expression language: doubles throughout; cdiv, div and % need integer operands (else NaN).
namespace evotune_expr {
struct value {
  double v;
  value(double x = 0) : v(x) {}
  explicit operator bool() const { return v != 0; }
};
inline bool integral(double x) { return std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9.0e15; }
inline double floor_div(value a, value b) {
  if (!integral(a.v) || !integral(b.v) || b.v == 0) return NAN;
  const std::int64_t x = static_cast<std::int64_t>(a.v), y = static_cast<std::int64_t>(b.v);
  std::int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) --q;
  return static_cast<double>(q);
}
inline value operator+(value a, value b) { return a.v + b.v; }
inline value operator-(value a, value b) { return a.v - b.v; }
inline value operator*(value a, value b) { return a.v * b.v; }
inline value operator/(value a, value b) { return a.v / b.v; }
inline value operator%(value a, value b) { return a.v - b.v * floor_div(a, b); }
inline value operator-(value a) { return -a.v; }
inline value operator+(value a) { return a.v; }
inline value operator!(value a) { return a.v == 0 ? 1.0 : 0.0; }
inline value operator==(value a, value b) { return a.v == b.v ? 1.0 : 0.0; }
inline value operator!=(value a, value b) { return a.v != b.v ? 1.0 : 0.0; }
inline value operator<(value a, value b) { return a.v < b.v ? 1.0 : 0.0; }
inline value operator<=(value a, value b) { return a.v <= b.v ? 1.0 : 0.0; }
inline value operator>(value a, value b) { return a.v > b.v ? 1.0 : 0.0; }
inline value operator>=(value a, value b) { return a.v >= b.v ? 1.0 : 0.0; }
inline value operator&&(value a, value b) { return a.v != 0 && b.v != 0 ? 1.0 : 0.0; }
inline value operator||(value a, value b) { return a.v != 0 || b.v != 0 ? 1.0 : 0.0; }
inline value cdiv(value a, value b) { return -floor_div(-a.v, b); }
inline value div(value a, value b) { return floor_div(a, b); }
inline value min(value a) { return a; }
template <class... More>
inline value min(value a, value b, More... more) { return min(a.v < b.v ? a : b, more...); }
inline value max(value a) { return a; }
template <class... More>
inline value max(value a, value b, More... more) { return max(a.v > b.v ? a : b, more...); }
inline value abs(value a) { return std::fabs(a.v); }
inline value sqrt(value a) { return std::sqrt(a.v); }
inline value floor(value a) { return std::floor(a.v); }
inline value ceil(value a) { return std::ceil(a.v); }
inline value ispow2(value a) {
  if (!integral(a.v) || a.v <= 0) return 0.0;
  const std::int64_t i = static_cast<std::int64_t>(a.v);
  return (i & (i - 1)) == 0 ? 1.0 : 0.0;
}
// A condition holds: non-zero and not NaN.
inline bool holds(value a) { return a.v != 0 && !std::isnan(a.v); }
// An integer scalar argument: whole and within its type.
inline bool fits(value a, double low, double high) {
  return std::isfinite(a.v) && a.v == std::floor(a.v) && a.v >= low && a.v <= high;
}
// A geometry or size: a whole number in [0, limit], else -1.
inline long long whole(value a, double limit) {
  return integral(a.v) && a.v >= 0 && a.v <= limit ? static_cast<long long>(a.v) : -1;
}
}  // namespace evotune_expr
)";
}

}  // namespace evotune
