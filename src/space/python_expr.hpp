// The Python subset of T1 files (Values, Conditions, geometry): a tokenizer and recursive-descent parser to a
// small tree, an evaluator over integers, floats, booleans and lists, and a translation to evotune's own
// expression language. No interpreter: names are the caller's, calls are range, list, len, min and max.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"

namespace evotune {

// Text that is not in the subset, or cannot be evaluated. The message names the construct, without a file or
// field ("attribute access '.append' is not supported").
class PythonError : public Error {
 public:
  using Error::Error;
};

struct PyNode {
  enum class Kind {
    integer,       // number_int
    real,          // number_real
    boolean,       // number_int (0/1)
    name,          // text
    list,          // children: the elements
    unary,         // text: "-", "+", "not"; children[0]
    binary,        // text: + - * / // % **; children[0], children[1]
    compare,       // ops: the operators of a chain; children: the operands
    logical,       // text: "and", "or"; children
    conditional,   // children: value, test, otherwise  (value if test else otherwise)
    call,          // text: the function; children: the arguments
    comprehension  // text: the loop variable; children: element, iterable[, filter]
  };
  Kind kind = Kind::integer;
  std::int64_t number_int = 0;
  double number_real = 0.0;
  std::string text;
  std::vector<std::string> ops;
  std::vector<PyNode> children;
};

// Parses one expression. Throws PythonError naming the unsupported construct or the syntax error.
PyNode parse_python(const std::string& text);

// A value of the subset.
struct PyValue {
  std::variant<std::int64_t, double, bool, std::vector<PyValue>> value;
  bool is_list() const { return std::holds_alternative<std::vector<PyValue>>(value); }
  const std::vector<PyValue>& list() const { return std::get<std::vector<PyValue>>(value); }
  bool is_real() const { return std::holds_alternative<double>(value); }
  double real() const;           // any number (a bool is 0 or 1); PythonError for a list
  bool truth() const;            // Python truthiness
  std::string describe() const;  // Python's repr, for messages
};

using PyNames = std::map<std::string, PyValue>;

// Evaluates the tree with these names visible. Throws PythonError (unknown name, bad operand types,
// division by zero, a range longer than ten million).
PyValue evaluate_python(const PyNode& node, const PyNames& names);

// The same expression in evotune's language (docs/search-space-format.md), for a number-valued field: a
// condition or a size. `names` are the names it may use (a parameter or a BenchmarkConfig entry);
// `substitute` replaces names by values (the reference's config). Throws PythonError for a list, a
// comprehension or an unknown name.
std::string python_to_native(const PyNode& node, const std::set<std::string>& names,
                             const std::map<std::string, std::string>& substitute = {});

}  // namespace evotune
