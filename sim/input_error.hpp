// Bad input: reported as one line "FILE: WHERE: WHAT" and exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace pipesim {

class InputError : public std::runtime_error {
 public:
  // where: a field path ("layers[2].forward") or "line 7"; may be empty.
  InputError(const std::string& file, const std::string& where, const std::string& what)
      : std::runtime_error(file + (where.empty() ? "" : ": " + where) + ": " + what) {}
};

}  // namespace pipesim
