// Fixed formatting: snprintf in the C locale (evotune never calls setlocale), so reports are byte-stable.
#include "report/text_format.hpp"

#include <cmath>
#include <cstdio>

namespace evotune::report {

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (text.find_first_not_of("-0.") == std::string::npos && text.front() == '-') text.erase(0, 1);
  return text;
}

std::string time_text(double us) {
  const double magnitude = std::fabs(us);
  if (magnitude < 1) return fixed(us, 4);
  if (magnitude < 100) return fixed(us, 2);
  if (magnitude < 1000) return fixed(us, 1);
  return fixed(us, 0);
}

std::string ratio_text(double ratio) { return fixed(ratio, std::fabs(ratio) < 10 ? 2 : 1); }

std::string percent_text(double fraction) { return fixed(100 * fraction, 1) + "%"; }

std::string escape_xml(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        escaped += c;
        break;
      default:  // other control characters are not allowed in XML 1.0
        escaped += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    }
  }
  return escaped;
}

}  // namespace evotune::report
