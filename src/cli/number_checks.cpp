#include "cli/number_checks.hpp"

#include <cstdio>
#include <functional>
#include <string>

namespace evotune::cli {
namespace {

// `bound` as a user wrote it: 60000, not 60000.000000; 0.5 stays 0.5.
std::string shown(double bound) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", bound);
  return text;
}

// A validator of the option's text as a number: "" where `accepts` holds, else "<text> <refusal>".
CLI::Validator number_check(std::function<bool(double)> accepts, const std::string& refusal,
                            const std::string& description) {
  return CLI::Validator(
      [accepts, refusal](std::string& text) -> std::string {
        double value = 0.0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        return accepts(value) ? std::string() : text + " " + refusal;
      },
      description);
}

}  // namespace

CLI::Validator positive() {
  return number_check([](double value) { return value > 0.0; }, "is not positive", "POSITIVE");
}

CLI::Validator non_negative() {
  return number_check([](double value) { return value >= 0.0; }, "is negative", "NON-NEGATIVE");
}

CLI::Validator in_range(double low, double high) {
  return number_check([low, high](double value) { return value >= low && value <= high; },
                      "is not in " + shown(low) + ".." + shown(high), shown(low) + ".." + shown(high));
}

}  // namespace evotune::cli
