// Deterministic random numbers for the seed 004 tests and benchmark: the
// standard distributions are implementation-defined, these are not, so the
// tables in docs/mobile.md come out the same everywhere.
#pragma once

#include <cstdint>
#include <random>

namespace pipesim::split::testing {

class SplitRng {
 public:
  explicit SplitRng(std::uint64_t seed) : engine_(seed) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  int integer(int lo, int hi) { return lo + static_cast<int>(engine_() % static_cast<std::uint64_t>(hi - lo + 1)); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace pipesim::split::testing
