#include "sim/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace pipesim {
namespace {

// A unit multiplies by factor * 10^exp10. Decimal prefixes go through exp10 so
// "1.5ms" is parsed as the text "1.5e-3": one correctly rounded conversion,
// exactly the double 0.0015. Binary prefixes and min/h are exact factors.
struct Unit {
  std::string_view name;
  int exp10 = 0;
  double factor = 1;
  bool flops = false;
};

constexpr double kKi = 1024.0;

const std::vector<Unit> kByteUnits = {
    {"", 0},
    {"B", 0},
    {"kB", 3},
    {"KB", 3},
    {"MB", 6},
    {"GB", 9},
    {"TB", 12},
    {"PB", 15},
    {"KiB", 0, kKi},
    {"MiB", 0, kKi* kKi},
    {"GiB", 0, kKi* kKi* kKi},
    {"TiB", 0, kKi* kKi* kKi* kKi},
    {"PiB", 0, kKi* kKi* kKi* kKi* kKi},
};

const std::vector<Unit> kTimeUnits = {
    {"", 0}, {"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}, {"min", 0, 60}, {"h", 0, 3600},
};

// SimGrid's speed units; a plain number is flops, as in SimGrid.
const std::vector<Unit> kFlopUnits = {
    {"", 0, 1, true},        {"f", 0, 1, true},   {"flops", 0, 1, true},   {"kf", 3, 1, true},
    {"kflops", 3, 1, true},  {"Mf", 6, 1, true},  {"Mflops", 6, 1, true},  {"Gf", 9, 1, true},
    {"Gflops", 9, 1, true},  {"Tf", 12, 1, true}, {"Tflops", 12, 1, true}, {"Pf", 15, 1, true},
    {"Pflops", 15, 1, true}, {"Ef", 18, 1, true}, {"Eflops", 18, 1, true},
};

// Costs: a plain number is seconds (a measured duration), flop units are flops.
std::vector<Unit> cost_units() {
  std::vector<Unit> units = kTimeUnits;
  for (const Unit& u : kFlopUnits)
    if (!u.name.empty()) units.push_back(u);
  return units;
}

std::string unit_list(const std::vector<Unit>& units) {
  std::string out;
  for (const Unit& u : units) {
    if (u.name.empty()) continue;
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Parses "<number>[ ]<unit>" against a unit table. expected: "a byte size
// like '16MiB'" etc., used in every message.
struct Parsed {
  double value;
  const Unit* unit;
};

Parsed parse_quantity(const std::string& original, const std::vector<Unit>& units, const std::string& expected) {
  const std::string got = "got '" + original + "'";
  std::string_view s = trim(original);
  if (s.empty()) throw std::invalid_argument("expected " + expected + ", got an empty value");
  if (s[0] == '-') throw std::invalid_argument("expected " + expected + " (not negative), " + got);

  // Number grammar: [+] digits [. digits] [(e|E) [+|-] digits]. No inf, nan, hex.
  std::size_t i = 0;
  if (s[i] == '+') ++i;
  const std::size_t mant_begin = i;
  int digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) throw std::invalid_argument("expected " + expected + ", " + got);
  std::string mantissa(s.substr(mant_begin, i - mant_begin));
  if (mantissa.front() == '.') mantissa.insert(0, "0");
  if (mantissa.back() == '.') mantissa += '0';

  long exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    // Only an exponent if digits follow: "2Ef" is 2 exaflops.
    std::size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) {
        if (exponent < 100000) exponent = exponent * 10 + (s[j] - '0');  // clamp: out of range anyway
        ++j;
      }
      if (negative) exponent = -exponent;
      i = j;
    }
  }

  // Only spaces may separate the number from its unit.
  std::string_view unit_text = s.substr(i);
  while (!unit_text.empty() && unit_text.front() == ' ') unit_text.remove_prefix(1);
  const Unit* unit = nullptr;
  for (const Unit& u : units)
    if (u.name == unit_text) unit = &u;
  if (!unit) {
    std::string why = unit_text.empty() ? "a unit is required" : "unknown unit '" + std::string(unit_text) + "'";
    throw std::invalid_argument("expected " + expected + ", " + got + " (" + why + "; units: " + unit_list(units) +
                                ")");
  }

  const std::string number = mantissa + "e" + std::to_string(exponent + unit->exp10);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size())
    throw std::invalid_argument("expected " + expected + ", " + got + " (out of range)");
  value *= unit->factor;
  if (!std::isfinite(value)) throw std::invalid_argument("expected " + expected + ", " + got + " (out of range)");
  return {value, unit};
}

// Three significant digits, then the unit: 1.50, 12.3, 123.
std::string three_digits(double v, const char* unit) {
  const double a = std::fabs(v);
  const char* fmt = a >= 99.95 || a == 0 ? "%.0f %s" : a >= 9.995 ? "%.1f %s" : "%.2f %s";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}

}  // namespace

double parse_bytes(const std::string& text) {
  return parse_quantity(text, kByteUnits, "a byte size like '16MiB' or '1.5GB'").value;
}

double parse_seconds(const std::string& text) {
  return parse_quantity(text, kTimeUnits, "a duration like '3ms' or '2.5s'").value;
}

double parse_flops(const std::string& text) {
  return parse_quantity(text, kFlopUnits, "a flop count like '2Tf' or '150Gflops'").value;
}

ParsedCost parse_cost(const std::string& text) {
  static const std::vector<Unit> units = cost_units();
  Parsed p = parse_quantity(text, units, "a duration like '3ms' or a flop count like '2Tf'");
  return {p.value, p.unit->flops};
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return std::to_string(bytes) + " B";
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = bytes;
  int u = 0;
  // Switch up at 999.5 so a value never prints as four digits ("1000 KiB").
  while (std::fabs(v) >= 999.5 && u < 6) v /= 1024, ++u;
  if (u == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f B", v);
    return buf;
  }
  return three_digits(v, units[u]);
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return std::to_string(seconds) + " s";
  const double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  // Rounding thresholds keep "999.96 us" from printing as "1000 us".
  if (a >= 0.9995) return three_digits(seconds, "s");
  if (a >= 0.9995e-3) return three_digits(seconds * 1e3, "ms");
  if (a >= 0.9995e-6) return three_digits(seconds * 1e6, "us");
  return three_digits(seconds * 1e9, "ns");
}

}  // namespace pipesim
