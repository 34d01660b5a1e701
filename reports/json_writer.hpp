// A minimal streaming JSON writer: escaping, commas, locale-independent
// numbers. Non-finite numbers become null (JSON has no NaN or infinity).
#pragma once

#include <cmath>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/format.hpp"

namespace pipesim {

inline std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 0xf];
          out += hex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

inline std::string json_number(double v) { return std::isfinite(v) ? fmt::number(v) : "null"; }

// Writes values in order; `pretty` puts each member on its own indented line.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os, bool pretty = false) : os_(os), pretty_(pretty) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(std::string_view k) {
    separate();
    os_ << json_escape(k) << (pretty_ ? ": " : ":");
    after_key_ = true;
  }

  void value(double v) { raw(json_number(v)); }
  void value(bool v) { raw(v ? "true" : "false"); }
  void value(std::string_view v) { raw(json_escape(v)); }
  void value(const char* v) { value(std::string_view(v)); }
  void value(const std::string& v) { value(std::string_view(v)); }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(T v) {
    raw(std::to_string(v));
  }
  void null() { raw("null"); }

  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void raw(const std::string& text) {
    separate();
    os_ << text;
  }
  // Comma and indentation before a member or element (not after a key).
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) os_ << ',';
      first_.back() = false;
      newline();
    }
  }
  void open(char c) {
    separate();
    os_ << c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    os_ << c;
  }
  void newline() {
    if (pretty_) os_ << '\n' << std::string(2 * first_.size(), ' ');
  }

  std::ostream& os_;
  bool pretty_;
  bool after_key_ = false;
  std::vector<bool> first_;  // per open container: no member written yet
};

}  // namespace pipesim
