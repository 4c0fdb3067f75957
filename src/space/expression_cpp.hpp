// Space-file expressions as C++ source: what an exported dispatcher evaluates at run time for the sizes it
// is called with, with the evaluator's semantics (numbers are doubles; cdiv, div and % need integer
// operands and give NaN otherwise; comparisons and logic give 1 or 0).
#pragma once

#include <functional>
#include <string>

namespace evotune {

// The C++ text of `expression`: numbers become double literals, every name goes through `name_of` (which
// may return it unchanged), and the functions become calls into `namespace evotune_expr` (expression_cpp_
// prelude). Throws ExpressionError for what the C++ form cannot express (the power operator ^) and for
// anything Expression itself refuses.
std::string expression_cpp(const std::string& expression,
                           const std::function<std::string(const std::string&)>& name_of);

// `namespace evotune_expr`: the value type the translated expressions compute with and the language's
// functions, for host code (needs <cmath> and <cstdint>, which it includes).
const char* expression_cpp_prelude();

}  // namespace evotune
