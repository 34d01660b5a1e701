// Bad input: reported as one line "FILE: WHERE: WHAT" and exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace pipesim {

// A message from a library (SimGrid, nlohmann-json) as the one line the
// error contract allows: line breaks and tabs become spaces, runs of spaces
// one, and at most 300 characters.
inline std::string single_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : text)
    if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
  if (out.size() > 300) out = out.substr(0, 297) + "...";
  return out;
}

class InputError : public std::runtime_error {
 public:
  // where: a field path ("layers[2].forward") or "line 7"; may be empty.
  InputError(const std::string& file, const std::string& where, const std::string& what)
      : std::runtime_error(file + (where.empty() ? "" : ": " + where) + ": " + what) {}
};

}  // namespace pipesim
