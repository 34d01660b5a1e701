// Number formatting for reports: locale-independent (std::to_chars, never the
// C locale) so the same input always gives the same bytes.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace pipesim::fmt {

// Up to `precision` significant digits, like printf's %g ("0.25", "1e-06"); 15
// digits keep integers (bytes) exact and drop binary round-off (0.1 + 0.2).
inline std::string number(double v, int precision = 15) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return "0";  // also turns -0 into 0
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
  return std::string(buf, r.ptr);
}

// Exactly `decimals` digits after the point ("12.30").
inline std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return number(v);
  if (v == 0) v = 0;  // no "-0.00"
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, r.ptr);
}

// "12.30 ms": the largest unit that keeps the value at least 1.
inline std::string time(double seconds) {
  if (!std::isfinite(seconds)) return number(seconds);
  const double a = std::abs(seconds);
  if (a == 0 || a >= 1) return fixed(seconds, 2) + " s";
  if (a >= 1e-3) return fixed(seconds * 1e3, 2) + " ms";
  if (a >= 1e-6) return fixed(seconds * 1e6, 2) + " us";
  return fixed(seconds * 1e9, 2) + " ns";
}

// "1.50 GiB": binary units; plain bytes below 1 KiB.
inline std::string bytes(double b) {
  if (!std::isfinite(b)) return number(b);
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (std::abs(b) < 1024) return fixed(b, 0) + " B";
  int u = 0;
  b /= 1024;
  while (std::abs(b) >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return fixed(b, 2) + " " + units[u];
}

// "12.5 %" from a fraction.
inline std::string percent(double fraction) { return fixed(fraction * 100, 1) + " %"; }

}  // namespace pipesim::fmt
