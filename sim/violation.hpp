// One thing wrong with a schedule, as pipesim validate reports it
// (docs/validate.md): found by pattern checks, order checks or a run.
#pragma once

#include <limits>
#include <string>

namespace pipesim {

struct Violation {
  std::string kind;                                        // structure, overlap, shift, dependency, memory, deadlock
  std::string message;                                     // one line, without the kind
  int device = -1;                                         // the device at fault, -1 if none (a link, a cycle)
  double time = std::numeric_limits<double>::quiet_NaN();  // pattern: offset in the period; run: seconds
};

}  // namespace pipesim
