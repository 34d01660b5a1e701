#include "sim/memory_limit.hpp"

#include <unistd.h>

#include <algorithm>

namespace pipesim {

double default_memory_limit() {
  constexpr double kCap = 16.0 * (1ull << 30);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return kCap;  // unknown: the cap
  return std::min(kCap, 0.75 * static_cast<double>(pages) * static_cast<double>(page));
}

}  // namespace pipesim
