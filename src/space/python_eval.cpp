// Evaluates the Python subset with Python's semantics: integers stay integers (// and % floor), / is true
// division, ** of integers is an integer when the exponent is >= 0, and/or give an operand, lists add.
#include <cmath>
#include <limits>
#include <sstream>

#include "space/python_expr.hpp"

namespace evotune {
namespace {

constexpr std::int64_t kMaxRange = 10'000'000;

bool is_int(const PyValue& v) {
  return std::holds_alternative<std::int64_t>(v.value) || std::holds_alternative<bool>(v.value);
}
std::int64_t as_int(const PyValue& v) {
  if (const auto* b = std::get_if<bool>(&v.value)) return *b ? 1 : 0;
  return std::get<std::int64_t>(v.value);
}
PyValue number(std::int64_t i) { return PyValue{i}; }
PyValue number(double d) { return PyValue{d}; }

std::int64_t integer_argument(const PyValue& v, const std::string& function) {
  if (!is_int(v)) throw PythonError(function + "() needs integers, got " + v.describe());
  return as_int(v);
}

PyValue arithmetic(const std::string& op, const PyValue& a, const PyValue& b) {
  if (op == "+" && a.is_list() && b.is_list()) {
    auto joined = a.list();
    joined.insert(joined.end(), b.list().begin(), b.list().end());
    return PyValue{joined};
  }
  if (a.is_list() || b.is_list())
    throw PythonError("'" + op + "' between " + a.describe() + " and " + b.describe() + " is not supported");
  if (is_int(a) && is_int(b)) {
    const std::int64_t x = as_int(a), y = as_int(b);
    if ((op == "//" || op == "%") && y == 0) throw PythonError("integer division by zero");
    if (op == "+") return number(x + y);
    if (op == "-") return number(x - y);
    if (op == "*") return number(x * y);
    if (op == "//") return number(x / y - ((x % y != 0) && ((x < 0) != (y < 0)) ? 1 : 0));
    if (op == "%") return number(((x % y) + y) % y);
    if (op == "**" && y >= 0) {
      std::int64_t result = 1;
      for (std::int64_t i = 0; i < y; ++i) result *= x;
      return number(result);
    }
  }
  const double x = a.real(), y = b.real();
  if ((op == "/" || op == "//" || op == "%") && y == 0) throw PythonError("division by zero");
  if (op == "+") return number(x + y);
  if (op == "-") return number(x - y);
  if (op == "*") return number(x * y);
  if (op == "/") return number(x / y);
  if (op == "//") return number(std::floor(x / y));
  if (op == "%") return number(x - std::floor(x / y) * y);
  return number(std::pow(x, y));
}

bool compare(const std::string& op, const PyValue& a, const PyValue& b) {
  if (op == "in" || op == "not in") {
    if (!b.is_list()) throw PythonError("'in' needs a list on its right, got " + b.describe());
    bool found = false;
    for (const auto& element : b.list())
      found = found || (!element.is_list() && !a.is_list() && element.real() == a.real());
    return op == "in" ? found : !found;
  }
  if (a.is_list() || b.is_list()) throw PythonError("comparing lists is not supported");
  const double x = a.real(), y = b.real();
  if (op == "<") return x < y;
  if (op == "<=") return x <= y;
  if (op == ">") return x > y;
  if (op == ">=") return x >= y;
  if (op == "==") return x == y;
  return x != y;
}

std::vector<PyValue> iterable(const PyValue& v, const std::string& where) {
  if (!v.is_list()) throw PythonError(where + " needs a list or range, got " + v.describe());
  return v.list();
}

PyValue call(const std::string& function, const std::vector<PyValue>& args) {
  if (function == "range") {
    if (args.empty() || args.size() > 3) throw PythonError("range() takes 1 to 3 arguments");
    std::int64_t start = 0, stop = 0, step = 1;
    if (args.size() == 1)
      stop = integer_argument(args[0], "range");
    else {
      start = integer_argument(args[0], "range");
      stop = integer_argument(args[1], "range");
      if (args.size() == 3) step = integer_argument(args[2], "range");
    }
    if (step == 0) throw PythonError("range() step is zero");
    std::vector<PyValue> values;
    for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (values.size() >= static_cast<std::size_t>(kMaxRange))
        throw PythonError("range() longer than ten million");
      values.push_back(number(i));
    }
    return PyValue{values};
  }
  if (function == "list") {
    if (args.size() != 1) throw PythonError("list() takes one argument");
    return PyValue{iterable(args[0], "list()")};
  }
  if (function == "len") {
    if (args.size() != 1) throw PythonError("len() takes one argument");
    return number(static_cast<std::int64_t>(iterable(args[0], "len()").size()));
  }
  if (function == "min" || function == "max") {
    const std::vector<PyValue> items = args.size() == 1 ? iterable(args[0], function + "()") : args;
    if (items.empty()) throw PythonError(function + "() of nothing");
    PyValue best = items[0];
    for (const auto& item : items) {
      if (item.is_list()) throw PythonError(function + "() of lists is not supported");
      if (function == "min" ? item.real() < best.real() : item.real() > best.real()) best = item;
    }
    return best;
  }
  throw PythonError("call of '" + function + "' is not supported (allowed: range, list, len, min, max)");
}

}  // namespace

double PyValue::real() const {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  throw PythonError("expected a number, got a list");
}

bool PyValue::truth() const { return is_list() ? !list().empty() : real() != 0.0; }

std::string PyValue::describe() const {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "True" : "False";
  if (const auto* d = std::get_if<double>(&value)) {
    std::ostringstream out;
    out.precision(17);
    out << *d;
    return out.str();
  }
  std::string text = "[";
  for (std::size_t i = 0; i < list().size() && i < 8; ++i) text += (i ? ", " : "") + list()[i].describe();
  return text + (list().size() > 8 ? ", ...]" : "]");
}

PyValue evaluate_python(const PyNode& node, const PyNames& names) {
  using Kind = PyNode::Kind;
  switch (node.kind) {
    case Kind::integer:
      return number(node.number_int);
    case Kind::real:
      return number(node.number_real);
    case Kind::boolean:
      return PyValue{node.number_int != 0};
    case Kind::name: {
      const auto found = names.find(node.text);
      if (found == names.end()) throw PythonError("unknown name '" + node.text + "'");
      return found->second;
    }
    case Kind::list: {
      std::vector<PyValue> values;
      for (const auto& child : node.children) values.push_back(evaluate_python(child, names));
      return PyValue{values};
    }
    case Kind::unary: {
      const PyValue operand = evaluate_python(node.children[0], names);
      if (node.text == "not") return PyValue{!operand.truth()};
      if (operand.is_list()) throw PythonError("unary '" + node.text + "' of a list");
      if (node.text == "+") return operand;
      return is_int(operand) ? number(-as_int(operand)) : number(-operand.real());
    }
    case Kind::binary:
      return arithmetic(node.text, evaluate_python(node.children[0], names),
                        evaluate_python(node.children[1], names));
    case Kind::compare: {
      PyValue left = evaluate_python(node.children[0], names);
      for (std::size_t i = 0; i < node.ops.size(); ++i) {
        PyValue right = evaluate_python(node.children[i + 1], names);
        if (!compare(node.ops[i], left, right)) return PyValue{false};
        left = std::move(right);
      }
      return PyValue{true};
    }
    case Kind::logical: {
      PyValue left = evaluate_python(node.children[0], names);
      if ((node.text == "and") != left.truth()) return left;
      return evaluate_python(node.children[1], names);
    }
    case Kind::conditional:
      return evaluate_python(node.children[1], names).truth() ? evaluate_python(node.children[0], names)
                                                              : evaluate_python(node.children[2], names);
    case Kind::call: {
      std::vector<PyValue> args;
      for (const auto& child : node.children) args.push_back(evaluate_python(child, names));
      return call(node.text, args);
    }
    case Kind::comprehension: {
      std::vector<PyValue> values;
      PyNames inner = names;
      for (const auto& item : iterable(evaluate_python(node.children[1], names), "a comprehension")) {
        inner[node.text] = item;
        if (node.children.size() > 2 && !evaluate_python(node.children[2], inner).truth()) continue;
        values.push_back(evaluate_python(node.children[0], inner));
      }
      return PyValue{values};
    }
  }
  throw PythonError("unknown expression");
}

}  // namespace evotune
