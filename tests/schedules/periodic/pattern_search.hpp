// The best pattern over allocations (seed 000 §4.2): exact period from the
// pattern's event graph, optionally only patterns whose analytic peak memory
// fits every device. The tests' oracle (an exhaustive search over
// allocations), which the program does not use.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Builds a pattern on an allocation, e.g. one_f_one_b_pattern or kfkb_pattern.
using PatternMaker = std::function<Pattern(const Allocation&)>;

struct PatternSearch {
  bool memory_aware = false;              // discard patterns whose pattern_memory peak exceeds Device::memory
  LinkModel links = LinkModel::Platform;  // the maker's, for the lower bound that prunes allocations
};

struct PatternChoice {
  Allocation allocation;
  Pattern pattern;
  double period = 0;         // exact period (event graph) per micro-batch: period / copies
  std::vector<double> peak;  // pattern_memory peak per device
  int evaluated = 0;         // patterns built and analysed in the search
};

// The smallest exact period per micro-batch over `allocations` (first one on
// ties); nullopt when none qualifies. An allocation whose lower bound
// (pattern_period_bound) cannot beat the best so far is skipped, so the
// search is exact but builds few patterns.
std::optional<PatternChoice> best_pattern(const std::vector<Allocation>& allocations, const PatternMaker& make,
                                          const Workload& workload, const Platform& platform,
                                          const PatternSearch& options = {});

// The same over every canonical allocation onto the platform's devices
// (enumerate_allocations' set, so devices are taken as interchangeable),
// by branch and bound: layers get a device in decreasing order of their
// F + B time (chain order when contiguous), least loaded device first, and
// a partial allocation is cut once its busiest device or link cannot beat
// the best so far. Exhaustive where listing every allocation is not
// (e.g. seed 000's chain C_3: 22 layers on 7 devices).
std::optional<PatternChoice> search_best_pattern(bool contiguous, const PatternMaker& make, const Workload& workload,
                                                 const Platform& platform, const PatternSearch& options = {});

}  // namespace pipesim
