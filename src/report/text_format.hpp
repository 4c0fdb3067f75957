// Locale-free number and text formatting for reports: the same value always gives the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace evotune::report {

// printf's "%.*f" with "-0" written as "0"; NaN and infinities as "nan", "inf", "-inf".
std::string fixed(double value, int decimals);
// A kernel time in microseconds with about four significant digits: 0.8125, 11.70, 123.4, 2365.
std::string time_text(double us);
// A ratio such as a slowdown: "1.00", "12.3".
std::string ratio_text(double ratio);
// "12.5%" with one decimal.
std::string percent_text(double fraction);
// Text for XML element content and attribute values: & < > " ' escaped, control characters other than
// tab and newlines (not allowed in XML 1.0) as '?'.
std::string escape_xml(std::string_view text);

}  // namespace evotune::report
