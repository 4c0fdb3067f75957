// Output files of tools' eval runs: read whole, never throwing, since a killed run leaves them partial.
#include "tools/eval_output.hpp"

#include <nlohmann/json.hpp>

#include "space/space_file.hpp"

namespace evotune {

std::string read_output_file(const std::filesystem::path& file) { return read_text_file(file).value_or(""); }

std::string last_line(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r')) trimmed.pop_back();
  const auto start = trimmed.find_last_of('\n');
  return start == std::string::npos ? trimmed : trimmed.substr(start + 1);
}

std::string eval_status(const std::string& json_text) {
  try {
    const auto json = nlohmann::json::parse(json_text);
    std::string status = json.at("status").get<std::string>();
    const std::string message = json.value("message", "");
    return message.empty() ? status : status + ": " + message;
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace evotune
