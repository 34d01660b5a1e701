#include "schedules/memory_estimate.hpp"

namespace pipesim {

double estimated_memory_bytes(const ScheduleSize& size) {
  return kBaseBytes + kBytesPerTask * size.tasks + kBytesPerPatternItem * size.pattern_items;
}

}  // namespace pipesim
