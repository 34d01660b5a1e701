// Two --json reports of one run by the two engines: equal text but for the
// "engine" line and numbers within 1e-9 relative (docs/outputs.md#the-engine).
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace pipesim::testing {

// The report without its "engine" line.
inline std::string without_engine(std::string json) {
  const std::size_t at = json.find("\n  \"engine\": ");
  if (at != std::string::npos) json.erase(at, json.find('\n', at + 1) - at);
  return json;
}

// Equal text, except numbers that differ by at most 1e-9 relative; WHERE
// receives the first difference.
inline bool same_report(const std::string& a, const std::string& b, std::string& where) {
  std::size_t i = 0, j = 0;
  auto number_start = [](const std::string& s, std::size_t k) {
    return k < s.size() && (std::isdigit(static_cast<unsigned char>(s[k])) || s[k] == '-') &&
           (k == 0 || s[k - 1] == ' ' || s[k - 1] == '[');
  };
  while (i < a.size() && j < b.size()) {
    if (number_start(a, i) && number_start(b, j)) {
      char* end_a = nullptr;
      char* end_b = nullptr;
      const double x = std::strtod(a.c_str() + i, &end_a), y = std::strtod(b.c_str() + j, &end_b);
      if (std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y))) {
        where = a.substr(i > 60 ? i - 60 : 0, 100) + " vs " + b.substr(j, 40);
        return false;
      }
      i = end_a - a.c_str();
      j = end_b - b.c_str();
    } else if (a[i++] != b[j++]) {
      where = a.substr(i > 60 ? i - 60 : 0, 100);
      return false;
    }
  }
  return i == a.size() && j == b.size();
}

}  // namespace pipesim::testing
