// Tokenizer and recursive-descent parser of the Python subset T1 files use, with Python's precedence:
// conditional < or < and < not < comparisons (chained, in, not in) < + - < * / // % < unary < ** < atoms.
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "space/python_expr.hpp"

namespace evotune {
namespace {

struct Token {
  enum class Kind { number, name, op, end } kind = Kind::end;
  std::string text;
  std::size_t at = 0;
};

const std::set<std::string> kUnsupportedKeywords = {"lambda", "import", "from",   "def",    "class", "yield",
                                                    "await",  "async",  "is",     "global", "exec",  "eval",
                                                    "del",    "with",   "assert", "return", "None"};

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token token;
    token.at = i;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      std::size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '.' || text[j] == '_' ||
              ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
        ++j;
      token.kind = Token::Kind::number;
      token.text = text.substr(i, j - i);
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      token.kind = Token::Kind::name;
      token.text = text.substr(i, j - i);
      if (kUnsupportedKeywords.count(token.text))
        throw PythonError("'" + token.text +
                          "' is not supported (T1 expressions are arithmetic, comparisons, "
                          "and/or/not, lists, range and comprehensions)");
      i = j;
    } else if (c == '.') {
      std::size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      throw PythonError("attribute access '" + text.substr(i, j - i) + "' is not supported");
    } else if (c == '\'' || c == '"') {
      throw PythonError("string literals are not supported (at column " + std::to_string(i + 1) + ")");
    } else {
      static const char* two[] = {"**", "//", "<=", ">=", "==", "!="};
      token.kind = Token::Kind::op;
      for (const char* op : two)
        if (text.compare(i, 2, op) == 0) token.text = op;
      if (token.text.empty()) {
        if (std::string("+-*/%<>()[],").find(c) == std::string::npos)
          throw PythonError("unsupported character '" + std::string(1, c) + "' at column " +
                            std::to_string(i + 1));
        token.text = std::string(1, c);
      }
      i += token.text.size();
    }
    tokens.push_back(std::move(token));
  }
  tokens.push_back(Token{Token::Kind::end, "", text.size()});
  return tokens;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : tokens_(tokenize(text)) {}

  PyNode parse() {
    PyNode node = conditional();
    if (peek().kind != Token::Kind::end) fail("unexpected '" + peek().text + "'");
    return node;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool accept(const std::string& text) {
    if (peek().kind == Token::Kind::end || peek().text != text || peek().kind == Token::Kind::number)
      return false;
    ++pos_;
    return true;
  }
  void expect(const std::string& text) {
    if (!accept(text))
      fail("expected '" + text + "'" +
           (peek().kind == Token::Kind::end ? " at the end" : " before '" + peek().text + "'"));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw PythonError(what + " (column " + std::to_string(peek().at + 1) + ")");
  }

  static PyNode make(PyNode::Kind kind, std::string text, std::vector<PyNode> children) {
    PyNode node;
    node.kind = kind;
    node.text = std::move(text);
    node.children = std::move(children);
    return node;
  }

  PyNode conditional() {
    PyNode value = logical_or();
    if (!accept("if")) return value;
    PyNode test = logical_or();
    expect("else");
    return make(PyNode::Kind::conditional, "", {std::move(value), std::move(test), conditional()});
  }
  PyNode logical_or() {
    PyNode node = logical_and();
    while (accept("or")) node = make(PyNode::Kind::logical, "or", {std::move(node), logical_and()});
    return node;
  }
  PyNode logical_and() {
    PyNode node = logical_not();
    while (accept("and")) node = make(PyNode::Kind::logical, "and", {std::move(node), logical_not()});
    return node;
  }
  PyNode logical_not() {
    if (accept("not")) return make(PyNode::Kind::unary, "not", {logical_not()});
    return comparison();
  }
  PyNode comparison() {
    PyNode first = arith();
    PyNode node = make(PyNode::Kind::compare, "", {});
    node.children.push_back(std::move(first));
    for (;;) {
      std::string op;
      for (const char* candidate : {"<", "<=", ">", ">=", "==", "!=", "in"})
        if (op.empty() && accept(candidate)) op = candidate;
      if (op.empty() && peek().text == "not" && tokens_[pos_ + 1].text == "in") {
        pos_ += 2;
        op = "not in";
      }
      if (op.empty()) break;
      node.ops.push_back(op);
      node.children.push_back(arith());
    }
    if (node.ops.empty()) return std::move(node.children[0]);
    return node;
  }
  PyNode arith() {
    PyNode node = term();
    for (;;) {
      if (accept("+"))
        node = make(PyNode::Kind::binary, "+", {std::move(node), term()});
      else if (accept("-"))
        node = make(PyNode::Kind::binary, "-", {std::move(node), term()});
      else
        return node;
    }
  }
  PyNode term() {
    PyNode node = unary();
    for (;;) {
      std::string op;
      for (const char* candidate : {"*", "/", "//", "%"})
        if (op.empty() && accept(candidate)) op = candidate;
      if (op.empty()) return node;
      node = make(PyNode::Kind::binary, op, {std::move(node), unary()});
    }
  }
  PyNode unary() {
    if (accept("-")) return make(PyNode::Kind::unary, "-", {unary()});
    if (accept("+")) return make(PyNode::Kind::unary, "+", {unary()});
    return power();
  }
  PyNode power() {
    PyNode base = atom();
    if (accept("**")) return make(PyNode::Kind::binary, "**", {std::move(base), unary()});
    return base;
  }
  PyNode number(const Token& token) {
    PyNode node;
    std::string digits;
    for (char c : token.text)
      if (c != '_') digits += c;
    char* end = nullptr;
    const bool real = digits.find_first_of(".eE") != std::string::npos;
    if (real) {
      node.kind = PyNode::Kind::real;
      node.number_real = std::strtod(digits.c_str(), &end);
    } else {
      node.kind = PyNode::Kind::integer;
      errno = 0;
      node.number_int = std::strtoll(digits.c_str(), &end, 10);
      if (errno != 0) fail("integer literal '" + token.text + "' out of range");
    }
    if (end == nullptr || *end != '\0') fail("malformed number '" + token.text + "'");
    return node;
  }
  PyNode atom() {
    const Token token = peek();
    if (token.kind == Token::Kind::end) fail("expression ends too early");
    ++pos_;
    if (token.kind == Token::Kind::number) return number(token);
    if (token.kind == Token::Kind::name) {
      if (token.text == "True" || token.text == "False") {
        PyNode node;
        node.kind = PyNode::Kind::boolean;
        node.number_int = token.text == "True";
        return node;
      }
      static const std::set<std::string> keywords = {"and", "or", "not", "in", "if", "else", "for"};
      if (keywords.count(token.text)) {
        --pos_;
        fail("unexpected '" + token.text + "'");
      }
      if (!accept("(")) return make(PyNode::Kind::name, token.text, {});
      PyNode call = make(PyNode::Kind::call, token.text, {});
      if (!accept(")")) {
        do call.children.push_back(conditional());
        while (accept(",") && peek().text != ")");
        expect(")");
      }
      return call;
    }
    if (token.text == "(") {
      PyNode inner = conditional();
      if (peek().text == ",") fail("tuples are not supported");
      expect(")");
      return inner;
    }
    if (token.text == "[") return list();
    --pos_;
    fail("unexpected '" + token.text + "'");
  }
  PyNode list() {
    PyNode node = make(PyNode::Kind::list, "", {});
    if (accept("]")) return node;
    PyNode first = conditional();
    if (accept("for")) {
      const Token variable = peek();
      if (variable.kind != Token::Kind::name) fail("expected a loop variable after 'for'");
      ++pos_;
      if (accept(",")) fail("a comprehension over several variables is not supported");
      expect("in");
      PyNode comprehension =
          make(PyNode::Kind::comprehension, variable.text, {std::move(first), logical_or()});
      if (accept("if")) comprehension.children.push_back(logical_or());
      if (peek().text == "for") fail("nested comprehensions are not supported");
      expect("]");
      return comprehension;
    }
    node.children.push_back(std::move(first));
    while (accept(",") && peek().text != "]") node.children.push_back(conditional());
    expect("]");
    return node;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

}  // namespace

PyNode parse_python(const std::string& text) { return Parser(text).parse(); }

}  // namespace evotune
