// Bad input: reported as one line "FILE: WHERE: WHAT" and exit code 2.
#pragma once

#include <cstddef>
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

namespace detail {

// TEXT cut to at most MAX bytes, "..." ending it, never inside a UTF-8 character.
inline std::string cut(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

inline bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// what() is a C string: a NUL quoted from an input would end the message
// there, losing what follows, so it is shown as \x00.
inline std::string nul_shown(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return out;
}

}  // namespace detail

// An error message of bounded length however large the input it quotes (a
// 4 MB cell, a repeated key): every quoted value ('...', opened after a
// non-letter, closed before one, so "the workload's" is no quote) keeps at
// most 160 characters, and the whole at most 2000, each cut ending "...".
inline std::string bounded_message(const std::string& text) {
  constexpr std::size_t kQuote = 160, kWhole = 2000;  // 160: a long path or a quoted line format stays whole
  std::string out;
  bool closes_left = true;  // once a quote finds no close, no later one will: the scan stays linear
  for (std::size_t i = 0; i < text.size();) {
    std::size_t close = std::string::npos;
    if (closes_left && text[i] == '\'' && (i == 0 || !detail::word_char(text[i - 1]))) {
      for (std::size_t j = text.find('\'', i + 1); j != std::string::npos && close == std::string::npos;
           j = text.find('\'', j + 1))
        if (j + 1 == text.size() || !detail::word_char(text[j + 1])) close = j;
      closes_left = close != std::string::npos;
    }
    if (close == std::string::npos) {
      out += text[i++];
      continue;
    }
    out += "'" + detail::cut(text.substr(i + 1, close - i - 1), kQuote) + "'";
    i = close + 1;
  }
  return detail::cut(out, kWhole);
}

class InputError : public std::runtime_error {
 public:
  // where: a field path ("layers[2].forward") or "line 7"; may be empty.
  // WHERE and WHAT are bounded (bounded_message); FILE is named whole.
  InputError(const std::string& file, const std::string& where, const std::string& what)
      : std::runtime_error(detail::nul_shown(file + (where.empty() ? "" : ": " + bounded_message(where)) + ": " +
                                             bounded_message(what))) {}
};

}  // namespace pipesim
