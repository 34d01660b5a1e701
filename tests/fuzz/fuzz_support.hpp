// Support for tests/fuzz/test_fuzz_contract.cpp: a deterministic random source,
// text mutations of input files, and a child-process runner with a hard
// timeout. Header-only; nothing here knows pipesim's formats beyond the
// regular expressions each test passes in.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace pipesim::fuzz {

// std::mt19937_64's raw output is specified bit for bit; the standard
// distributions are not (libstdc++ and libc++ differ), so choices are
// derived from the raw numbers here.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(engine_() % n); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::mt19937_64 engine_;
};

// A span of the text: [pos, pos + len).
struct Span {
  std::size_t pos = 0, len = 0;
};

// Where a format keeps its fields and names, as regular expressions.
struct FormatRules {
  std::vector<std::regex> fields;  // deleted or duplicated whole (an attribute, `key: value`, a cell, an element)
  std::regex name;                 // group 1 is a name to replace by an unknown one
  std::vector<std::string> unknown_names;
  std::string separator;  // between a field and its copy; "" = from the context (flow or block YAML, XML)
};

inline std::vector<Span> matches(const std::string& text, const std::regex& re, int group = 0) {
  std::vector<Span> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    if ((*it)[group].matched && (*it)[group].length() > 0)
      out.push_back({static_cast<std::size_t>(it->position(group)), static_cast<std::size_t>(it->length(group))});
  return out;
}

inline bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Numbers not part of a name (`gpu0` has none): an optional sign, digits,
// a fraction and an exponent. `unit` receives the letters right after each.
inline std::vector<Span> numbers(const std::string& text, std::vector<Span>* unit = nullptr) {
  std::vector<Span> out;
  std::size_t i = 0;
  while (i < text.size()) {
    // `link0-1` and `gpu2` hold no numbers; `-1` and `x="3"` do.
    const bool after_sign = i > 0 && text[i - 1] == '-';
    const bool in_name = i > 0 && (is_word(text[i - 1]) || text[i - 1] == '.' ||
                                   (after_sign && i > 1 && (is_word(text[i - 2]) || text[i - 2] == '-')));
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || in_name) {
      ++i;
      continue;
    }
    std::size_t begin = after_sign ? i - 1 : i, end = i;
    auto digits = [&] {
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    };
    digits();
    if (end + 1 < text.size() && text[end] == '.' && std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
      ++end;
      digits();
    }
    if (end + 1 < text.size() && (text[end] == 'e' || text[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
      if (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) {
        end = e;
        digits();
      }
    }
    out.push_back({begin, end - begin});
    std::size_t u = end;
    while (u < text.size() && std::isalpha(static_cast<unsigned char>(text[u]))) ++u;
    if (unit) unit->push_back({end, u - end});
    i = u > end ? u : end;
  }
  return out;
}

inline std::vector<Span> lines(const std::string& text) {
  std::vector<Span> out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t nl = text.find('\n', begin);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back({begin, end - begin});
    begin = end;
  }
  return out;
}

inline int line_of(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::min(pos, text.size()), '\n'));
}

// Printable form of a piece of text for a failure message.
inline std::string shown(const std::string& s, std::size_t max = 60) {
  std::string out;
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (u < 32 || u >= 127) {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    } else
      out += c;
  }
  return "'" + out + (s.size() > max ? "...'" : "'");
}

// One mutation of `text` chosen from the rng; returns what it did, for the
// failure message (the seed reproduces it).
class Mutator {
 public:
  Mutator(Rng& rng, const FormatRules& rules) : rng_(rng), rules_(rules) {}

  std::string mutate(std::string& text) {
    // Weighted: numbers and fields are where the interesting values live.
    static const std::vector<std::pair<int, const char*>> kinds = {
        {24, "number"},       {8, "unit"},           {8, "delete-line"}, {8, "duplicate-line"}, {6, "swap-lines"},
        {5, "truncate"},      {6, "garbage"},        {3, "nul"},         {10, "delete-field"},  {12, "duplicate-field"},
        {12, "unknown-name"}, {8, "numbers-of-unit"}};
    int total = 0;
    for (const auto& k : kinds) total += k.first;
    for (int attempt = 0; attempt < 20; ++attempt) {
      int r = static_cast<int>(rng_.below(static_cast<std::size_t>(total)));
      std::string kind;
      for (const auto& k : kinds) {
        if (r < k.first) {
          kind = k.second;
          break;
        }
        r -= k.first;
      }
      std::string what = apply(kind, text);
      if (!what.empty()) return what;
    }
    return insert(text, text.size() / 2, std::string(1, '\0'), "nul");
  }

 private:
  // A replacement from `choices` that differs from what is there.
  std::string other(const std::string& current, const std::vector<std::string>& choices) {
    std::size_t i = rng_.below(choices.size());
    if (choices[i] == current) i = (i + 1) % choices.size();
    return choices[i];
  }
  std::string replace_by_other(std::string& text, Span s, const std::vector<std::string>& choices,
                               const std::string& kind) {
    return replace(text, s, other(text.substr(s.pos, s.len), choices), kind);
  }
  std::string replace(std::string& text, Span s, const std::string& by, const std::string& kind) {
    const std::string what = kind + " at line " + std::to_string(line_of(text, s.pos)) + ": " +
                             shown(text.substr(s.pos, s.len)) + " -> " + shown(by);
    text.replace(s.pos, s.len, by);
    return what;
  }
  std::string insert(std::string& text, std::size_t pos, const std::string& bytes, const std::string& kind) {
    const std::string what = kind + " at byte " + std::to_string(pos) + " (line " + std::to_string(line_of(text, pos)) +
                             "): " + shown(bytes);
    text.insert(pos, bytes);
    return what;
  }

  std::string apply(const std::string& kind, std::string& text) {
    const std::vector<Span> ls = lines(text);
    if (kind == "number" || kind == "unit" || kind == "numbers-of-unit") {
      std::vector<Span> units;
      const std::vector<Span> ns = numbers(text, &units);
      if (ns.empty()) return "";
      static const std::vector<std::string> values = {"0",
                                                      "-1",
                                                      "nan",
                                                      "inf",
                                                      "-inf",
                                                      "1e308",
                                                      "1e-308",
                                                      "2147483648",
                                                      "9223372036854775808",
                                                      "18446744073709551616",
                                                      "99999999999999999999999",
                                                      "4294967295",
                                                      "-0",
                                                      "1e400",
                                                      "0.5",
                                                      "3",
                                                      "1000000000"};
      if (kind == "number") return replace_by_other(text, rng_.pick(ns), values, kind);
      if (kind == "numbers-of-unit") {  // every `ms` time, every `GBps` bandwidth...: zero-cost layers, dead links
        const std::size_t which = rng_.below(ns.size());
        const std::string unit = text.substr(units[which].pos, units[which].len), value = rng_.pick(values);
        if (unit.empty()) return "";
        int count = 0;
        for (std::size_t i = ns.size(); i-- > 0;)  // from the end: the spans before stay valid
          if (text.compare(units[i].pos, units[i].len, unit) == 0) {
            text.replace(ns[i].pos, ns[i].len, value);
            ++count;
          }
        return kind + ": " + std::to_string(count) + " numbers in '" + unit + "' -> " + shown(value);
      }
      std::vector<Span> with_unit;
      for (const Span& u : units)
        if (u.len > 0) with_unit.push_back(u);
      static const std::vector<std::string> suffixes = {"",   "B", "GBps", "Bps", "Gbps", "Tf",  "f",       "kf",
                                                        "ms", "s", "us",   "h",   "MiB",  "GiB", "parsecs", "%"};
      if (with_unit.empty()) return "";
      return replace_by_other(text, rng_.pick(with_unit), suffixes, kind);
    }
    if (kind == "delete-line" || kind == "duplicate-line") {
      if (ls.empty()) return "";
      const Span l = rng_.pick(ls);
      const std::string line = text.substr(l.pos, l.len);
      return replace(text, l, kind == "delete-line" ? "" : line + line, kind);
    }
    if (kind == "swap-lines") {
      if (ls.size() < 2) return "";
      std::size_t a = rng_.below(ls.size()), b = rng_.below(ls.size());
      if (a == b) b = (a + 1) % ls.size();
      if (a > b) std::swap(a, b);
      std::string la = text.substr(ls[a].pos, ls[a].len), lb = text.substr(ls[b].pos, ls[b].len);
      if (la.back() != '\n') la += '\n';
      if (lb.back() != '\n') lb += '\n';
      const std::string what = "swap-lines " + std::to_string(a + 1) + " and " + std::to_string(b + 1);
      text = text.substr(0, ls[a].pos) + lb + text.substr(ls[a].pos + ls[a].len, ls[b].pos - ls[a].pos - ls[a].len) +
             la + text.substr(ls[b].pos + ls[b].len);
      return what;
    }
    if (kind == "truncate") {
      const std::size_t at = rng_.below(text.size());
      const std::string what = "truncate at byte " + std::to_string(at) + " (line " +
                               std::to_string(line_of(text, at)) + ") of " + std::to_string(text.size());
      text.resize(at);
      return what;
    }
    if (kind == "garbage") {
      static const std::string specials = std::string("\0\xff\x80\"'<>&{}[]:,\n\t#%*!|-=\\", 24);
      std::string bytes;
      for (std::size_t n = 1 + rng_.below(6); n > 0; --n)
        bytes += rng_.chance(50) ? specials[rng_.below(specials.size())] : static_cast<char>(rng_.below(256));
      return insert(text, rng_.below(text.size() + 1), bytes, kind);
    }
    if (kind == "nul") return insert(text, rng_.below(text.size() + 1), std::string(1, '\0'), kind);
    if (kind == "delete-field" || kind == "duplicate-field") {
      // A kind of field first (an element is as likely as an attribute), then one of them.
      if (rules_.fields.empty()) return "";
      const std::vector<Span> all = matches(text, rng_.pick(rules_.fields));
      if (all.empty()) return "";
      const Span s = rng_.pick(all);
      const std::string field = text.substr(s.pos, s.len);
      return replace(text, s, kind == "delete-field" ? "" : field + separator(text, s) + field, kind);
    }
    // unknown-name
    const std::vector<Span> names = matches(text, rules_.name, 1);
    if (names.empty() || rules_.unknown_names.empty()) return "";
    return replace_by_other(text, rng_.pick(names), rules_.unknown_names, kind);
  }

  // What goes between a duplicated field and its copy.
  std::string separator(const std::string& text, Span s) const {
    if (text[s.pos + s.len - 1] == '\n') return "";  // a whole line or element
    if (!rules_.separator.empty()) return rules_.separator;
    const char next = s.pos + s.len < text.size() ? text[s.pos + s.len] : '\n';
    if (next == ',' || next == '}') return ", ";  // YAML flow mapping
    if (next == '\n') {                           // YAML block mapping: same indentation
      const std::size_t begin = text.rfind('\n', s.pos) == std::string::npos ? 0 : text.rfind('\n', s.pos) + 1;
      return "\n" + text.substr(begin, s.pos - begin);
    }
    return "";
  }

  Rng& rng_;
  const FormatRules& rules_;
};

// The FIELD of an error line `pipesim: error: FILE: [line N: ]FIELD: WHAT`
// (docs/outputs.md#error-lines), given what follows `FILE: `; "" when it
// names none. A field is a path (`layers[0].backward`, `--json`,
// `network/model:x`: no space before its first `.`, `[` or `/`), an element
// named by its kind (`host 'gpu0' property memory`, `link 'l1'`,
// `route a -> b`, `edge a -- b`, `node 'n1'`), a row or cell of a CSV
// (`line 3 (rank 1), column 2`), `YAML|XML|JSON syntax error` in a file its
// parser cannot read, or a key as written when it is the fault (unknown,
// duplicate: a mutation may put a space in it).
inline std::string named_field(std::string rest) {
  static const std::regex line(R"(^line \d+: )");
  std::smatch m;
  if (std::regex_search(rest, m, line)) rest = m.suffix().str();
  const std::size_t colon = rest.find(": ");
  if (colon == std::string::npos || colon == 0) return "";
  const std::string field = rest.substr(0, colon), what = rest.substr(colon + 2);
  static const std::regex forms(R"(^(?:[^\s.\[/]+(?:[.\[/][\s\S]*)?)"
                                R"(|(?:host|hosts|link|router|route|zoneRoute|link_ctn|cluster|zone|node|edge) [\s\S]+)"
                                R"(|line \d+ \(rank \d+\)(?:, column \d+)?|(?:YAML|XML|JSON) syntax error)$)");
  if (std::regex_match(field, forms)) return field;
  if (what.rfind("unknown key", 0) == 0 || what.rfind("duplicate key", 0) == 0) return field;
  return "";
}

struct ChildResult {
  bool timed_out = false;
  int signal = 0;      // the signal that ended it, 0 if it exited
  int exit_code = -1;  // when it exited
};

// Runs argv[0] with argv in `dir`, stdin from /dev/null, stdout and stderr to
// the given files, in its own process group, killed (with the group) after
// `timeout_seconds`. Without ASan the address space is capped so that a huge
// allocation fails inside the child instead of swapping the machine.
inline ChildResult run_child(const std::vector<std::string>& argv, const std::string& dir, const std::string& out_file,
                             const std::string& err_file, int timeout_seconds) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // ASan reserves terabytes of address space: cap its resident size instead,
  // at 2.5 x the release build's 4 GiB (shadow memory and redzones: the
  // million-layer case takes 3.4 GB released, over 4 GB instrumented).
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("ASAN_OPTIONS=", 0) != 0) env_storage.emplace_back(*e);
  const char* asan = std::getenv("ASAN_OPTIONS");
  env_storage.push_back(std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") +
                        "hard_rss_limit_mb=10240");
  std::vector<char*> env;
  for (auto& e : env_storage) env.push_back(e.data());
  env.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    ::setpgid(0, 0);
#if !defined(__SANITIZE_ADDRESS__)
    const rlimit memory{rlim_t(4) << 30, rlim_t(4) << 30};
    ::setrlimit(RLIMIT_AS, &memory);
#endif
    const rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so the kill below cannot miss the group
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  ChildResult result;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return result;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.timed_out = true;
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

// The orders-CSV cases' base: GPipe on 4 ranks, 4 micro-batches (every
// forward, then every backward).
inline std::string gpipe_orders() {
  std::string csv;
  for (int rank = 0; rank < 4; ++rank) {
    for (int i = 0; i < 8; ++i)
      csv += (i ? "," : "") + std::to_string(rank) + (i < 4 ? "F" : "B") + std::to_string(i % 4);
    csv += "\n";
  }
  return csv;
}

}  // namespace pipesim::fuzz
