#pragma once
#include <stdexcept>
#include <string>

namespace tryon {

/// The one error type for bad input at an API boundary (a file that cannot be read, a
/// pattern that is not valid, an option out of range). The message names the file or
/// object and says what is wrong, in words a user can act on. The command line maps it to
/// exit code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tryon
