// Status names as stored in the database and printed by the CLI.
#include "core/status.hpp"

#include <array>
#include <utility>

namespace evotune {
namespace {
constexpr std::array<std::pair<Status, std::string_view>, 9> kStatusNames{{
    {Status::ok, "ok"},
    {Status::compile_error, "compile_error"},
    {Status::resource_error, "resource_error"},
    {Status::launch_error, "launch_error"},
    {Status::timeout, "timeout"},
    {Status::wrong_result, "wrong_result"},
    {Status::nan, "nan"},
    {Status::out_of_bounds, "out_of_bounds"},
    {Status::nondeterministic, "nondeterministic"},
}};
}  // namespace

std::string_view to_string(Status status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "unknown";
}

std::optional<Status> status_from_string(std::string_view text) {
  for (const auto& [value, name] : kStatusNames)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace evotune
