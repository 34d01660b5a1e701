#include "schedules/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>

namespace pipesim {

double estimated_memory_bytes(const ScheduleSize& size) {
  return kBaseBytes + kBytesPerTask * size.tasks + kBytesPerPatternItem * size.pattern_items;
}

double default_memory_limit() {
  constexpr double kCap = 16.0 * (1ull << 30);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return kCap;  // unknown: the cap
  return std::min(kCap, 0.75 * static_cast<double>(pages) * static_cast<double>(page));
}

}  // namespace pipesim
