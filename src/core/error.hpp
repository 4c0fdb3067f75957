// Set-up errors: a bad file, a missing device, an unusable database. They reach the user as one line.
#pragma once

#include <stdexcept>
#include <string>

namespace evotune {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error in a search-space file; the message names the field
// ("ConfigurationSpace.TuningParameters[2].Values: ...").
class SpaceError : public Error {
 public:
  using Error::Error;
};

// An error in a problem's text or sizes ("problem: unknown size 'X' (known: ...)"); reason() is the message
// without its "problem: " lead, for callers that name the problem themselves (a problems file's line).
class ProblemError : public Error {
 public:
  explicit ProblemError(const std::string& reason) : Error("problem: " + reason), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

}  // namespace evotune
