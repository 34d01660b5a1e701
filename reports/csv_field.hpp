// One CSV field as RFC 4180 (section 2, rules 6 and 7) writes it: quoted
// only when it holds a comma, a double quote or a line break (CR or LF),
// a double quote inside doubled. Every CSV pipesim writes quotes this way,
// so a name with a comma or a Windows line ending reads back as one field.
#pragma once

#include <string>
#include <string_view>

namespace pipesim {

inline std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace pipesim
