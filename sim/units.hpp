// Quantities with units, as written in workload and platform files.
// Parsers are strict: a typo must not silently become a different number.
// They throw std::invalid_argument saying what was expected and what was
// found; callers add the file and field (see InputError).
#pragma once

#include <string>

namespace pipesim {

// Bytes. A plain number is bytes; B, kB/KB, MB, GB, TB, PB are powers of 1000;
// KiB, MiB, GiB, TiB, PiB are powers of 1024. "80GiB", "1.5 MB", "4096".
double parse_bytes(const std::string& text);

// Seconds. A plain number is seconds; units s, ms, us, ns, min, h.
double parse_seconds(const std::string& text);

// Flops (or flop/s for host speeds, as SimGrid writes them). A plain number is
// flops; units f, kf, Mf, Gf, Tf, Pf, Ef and the spellings flops, kflops,
// Mflops, Gflops, Tflops, Pflops, Eflops.
double parse_flops(const std::string& text);

// A compute cost: a duration (time unit or plain number, in seconds) or a
// flop count (flop unit).
struct ParsedCost {
  double value = 0;
  bool flops = false;
};
ParsedCost parse_cost(const std::string& text);

// Human-readable, three significant digits: "1.50 GiB", "512 B", "12.3 ms".
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);

}  // namespace pipesim
