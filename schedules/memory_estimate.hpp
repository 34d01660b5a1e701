// How much memory a run needs to simulate, estimated before anything is
// built, so that a run too large for the machine is one clear error
// instead of a std::bad_alloc after minutes (or the OOM killer).
#pragma once

#include <string>

#include "sim/memory_limit.hpp"

namespace pipesim {

// What a schedule will build, counted by its family (registry.hpp).
struct ScheduleSize {
  double tasks = 0;          // tasks of the task graph, transfers included
  double pattern_items = 0;  // ops and transfers of its pattern (0 if none)
  // For the message: what one micro-batch goes through, "8 stages".
  std::string pieces;
  // Memory the builder needs beside what it builds (the ILP's model), freed
  // before the run, so refused on its own: the parameter that sets it and
  // what it is, for the message. 0: none.
  double builder_bytes = 0;
  std::string builder_field{}, builder_what{};
};

// Measured with /usr/bin/time -v (maximum resident set) on runs of 0.6 to
// 16 million tasks or pattern items: 255-345 bytes per task (1f1b, gpipe,
// pipedream, 1f1b-pattern and kfkb on 4 to 1000 layers), about 400 per
// pattern item (1f1b on 100,000 and 1,000,000 layers), graph, timeline,
// pattern, event graph and reports included, plus about 40 MiB for SimGrid
// and the rest. Rounded up by a sixth or more, so the estimate stays above
// what was measured.
constexpr double kBytesPerTask = 400;
constexpr double kBytesPerPatternItem = 480;
constexpr double kBaseBytes = 64.0 * (1 << 20);

double estimated_memory_bytes(const ScheduleSize& size);

}  // namespace pipesim
