// Translates a number-valued Python expression into evotune's expression language with the same value:
// // is div, ** is ^, and/or/not are && || not(), a comparison chain is a conjunction, `x in [a, b]` a
// disjunction of equalities. Every operation is parenthesised, so precedence never differs.
#include <sstream>

#include "space/python_expr.hpp"

namespace evotune {
namespace {

struct Translator {
  const std::set<std::string>& names;
  const std::map<std::string, std::string>& substitute;

  std::string operator()(const PyNode& node) const {
    using Kind = PyNode::Kind;
    switch (node.kind) {
      case Kind::integer:
        return std::to_string(node.number_int);
      case Kind::boolean:
        return node.number_int ? "1" : "0";
      case Kind::real: {
        std::ostringstream out;
        out.precision(17);
        out << node.number_real;
        return out.str();
      }
      case Kind::name: {
        if (const auto value = substitute.find(node.text); value != substitute.end()) return value->second;
        if (!names.count(node.text)) throw PythonError("unknown name '" + node.text + "'");
        return node.text;
      }
      case Kind::unary:
        if (node.text == "not") return "not(" + (*this)(node.children[0]) + ")";
        return "(" + node.text + (*this)(node.children[0]) + ")";
      case Kind::binary: {
        const std::string a = (*this)(node.children[0]), b = (*this)(node.children[1]);
        if (node.text == "//") return "div(" + a + ", " + b + ")";
        if (node.text == "**") return "(" + a + " ^ " + b + ")";
        return "(" + a + " " + node.text + " " + b + ")";
      }
      case Kind::compare: {
        std::string text;
        for (std::size_t i = 0; i < node.ops.size(); ++i) {
          const std::string term = comparison(node.ops[i], node.children[i], node.children[i + 1]);
          text = text.empty() ? term : "(" + text + " && " + term + ")";
        }
        return text;
      }
      case Kind::logical: {
        const std::string op = node.text == "and" ? " && " : " || ";
        return "(" + (*this)(node.children[0]) + op + (*this)(node.children[1]) + ")";
      }
      case Kind::conditional:
        return "(" + (*this)(node.children[1]) + " ? " + (*this)(node.children[0]) + " : " +
               (*this)(node.children[2]) + ")";
      case Kind::call: {
        if (node.text != "min" && node.text != "max") {
          if (node.text == "range" || node.text == "list" || node.text == "len")
            throw PythonError(node.text + "() gives or reads a list: not allowed where a number is expected");
          throw PythonError("call of '" + node.text +
                            "' is not supported (allowed: range, list, len, min, max)");
        }
        if (node.children.size() < 2)
          throw PythonError(node.text + "() of a list: not allowed where a number is expected");
        std::string text = node.text + "(";
        for (std::size_t i = 0; i < node.children.size(); ++i)
          text += (i ? ", " : "") + (*this)(node.children[i]);
        return text + ")";
      }
      case Kind::list:
      case Kind::comprehension:
        throw PythonError("a list is not allowed where a number is expected");
    }
    throw PythonError("unknown expression");
  }

  std::string comparison(const std::string& op, const PyNode& left, const PyNode& right) const {
    const std::string a = (*this)(left);
    if (op != "in" && op != "not in") return "(" + a + " " + op + " " + (*this)(right) + ")";
    if (right.kind != PyNode::Kind::list || right.children.empty())
      throw PythonError("'" + op + "' needs a non-empty list literal on its right");
    std::string text;
    for (const auto& element : right.children) {
      const std::string term = "(" + a + " == " + (*this)(element) + ")";
      text = text.empty() ? term : text + " || " + term;
    }
    return op == "in" ? "(" + text + ")" : "not(" + text + ")";
  }
};

}  // namespace

std::string python_to_native(const PyNode& node, const std::set<std::string>& names,
                             const std::map<std::string, std::string>& substitute) {
  return Translator{names, substitute}(node);
}

}  // namespace evotune
