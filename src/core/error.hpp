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

}  // namespace evotune
