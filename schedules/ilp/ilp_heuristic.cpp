#include "schedules/ilp/ilp_heuristic.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "sim/exact_period.hpp"
#include "sim/units.hpp"

namespace pipesim::ilp {
namespace {

// IlpOptions::progress at most every 5 s: the search is silent otherwise.
class Progress {
 public:
  explicit Progress(const IlpOptions& options) : report_(options.progress) {}
  void tick(const HeuristicResult& r) {
    if (!report_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(5)) return;
    last_ = now;
    double best = std::numeric_limits<double>::infinity();
    if (r.best) best = r.best_period / r.best->copies;
    if (r.other) best = std::min(best, r.other_period / r.other->copies);
    report_("heuristic: " + std::to_string(r.evaluated) + " candidates tried, best so far " +
            (r.best || r.other ? format_seconds(best) + " per micro-batch" : "none that fits"));
  }

 private:
  const std::function<void(const std::string&)>& report_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

struct Evaluated {
  Pattern pattern;
  double period = 0;
  double worst_peak = 0;
  bool fits = true;
  double work = 0;  // one micro-batch's compute, all devices: work / NOAM bounds an eager period
};

Evaluated analyse(Pattern pattern, const Workload& w, const Platform& platform, const IlpOptions& options) {
  Evaluated e{std::move(pattern)};
  const PatternTiming t = pattern_timing(e.pattern, w, platform);
  e.period = exact_period(pattern_event_graph(e.pattern, t)).period;
  for (std::size_t i = 0; i < e.pattern.ops.size(); ++i) e.work += t.duration[i] / e.pattern.copies;
  const PatternMemory m = pattern_memory(e.pattern, t, w, platform.size());
  double smallest = std::numeric_limits<double>::infinity();
  for (const Device& dev : platform.devices)
    if (dev.memory > 0) smallest = std::min(smallest, dev.memory);
  for (int d = 0; d < platform.size(); ++d) {
    e.worst_peak = std::max(e.worst_peak, m.devices[d].peak);
    const double own = platform.devices[d].memory > 0 ? platform.devices[d].memory : smallest;
    if (m.devices[d].peak > (options.allocation ? own : smallest)) e.fits = false;
  }
  return e;
}

Evaluated kfkb(const Allocation& a, const Workload& w, const Platform& platform, const IlpOptions& options) {
  return analyse(kfkb_pattern(options.copies, a, w, platform, options.weights, options.links), w, platform, options);
}

// PipeDream's eager 1F1B steady state with `noam` micro-batches in flight
// (seed 000 §7's baseline) under the ILP's weight policy, with as many
// copies as the micro-batches of its cycle; nullopt when no pattern
// expresses it (no cycle within pipedream_pattern's bound, transfers sharing a link).
std::optional<Evaluated> eager(const Allocation& a, int noam, const Workload& w, const Platform& platform,
                               const IlpOptions& options) {
  Pattern p;
  try {
    p = pipedream_pattern(a, noam, w, platform);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  p.weights = options.weights;
  p.links = options.links;  // pipedream_pattern checked its transfers on the platform's links
  if (!find_overlap(p, pattern_timing(p, w, platform), platform).empty()) return std::nullopt;
  return analyse(std::move(p), w, platform, options);
}

// (allocation, NOAM) pairs for eager patterns: in fixed mode the allocation
// (if contiguous) with NOAM = stages .. 1; else seed 000 §7's PipeDream
// baseline, the planner's partitions over its grid of memory targets, each
// with NOAM = 1 .. P. Their patterns have the copies of their own cycle.
std::vector<std::pair<Allocation, int>> eager_candidates(const Workload& w, const Platform& platform,
                                                         const IlpOptions& options) {
  std::vector<std::pair<Allocation, int>> list;
  if (options.allocation) {
    if (!is_contiguous(*options.allocation)) return list;
    for (int noam = devices_used(*options.allocation); noam >= 1; --noam) list.push_back({*options.allocation, noam});
    return list;
  }
  for (const BaselineConfig& c : pipedream_configurations(w, platform, BaselineOptions{}))
    list.push_back({c.plan.allocation, c.noam});
  return list;
}

}  // namespace

std::vector<Allocation> heuristic_allocations(const Workload& w, const Platform& platform, const IlpOptions& options,
                                              int cap) {
  if (options.allocation) return {*options.allocation};
  std::vector<Allocation> list;
  AllocationVisitor visitor;
  visitor.prune = [&](const Allocation&) { return static_cast<int>(list.size()) >= cap; };
  visitor.visit = [&](const Allocation& a) {
    if (static_cast<int>(list.size()) < cap) list.push_back(a);
  };
  const int L = static_cast<int>(w.layers.size());
  for_each_allocation(L, platform.size(), L > 8, {}, visitor);
  return list;
}

// kFkB over the allocations in order of load bound (its period is the
// bound: cheap, and optimal with enough memory), then the eager candidates.
// When no kFkB pattern fits (scarce memory), also the eager patterns of the
// contiguous allocations tried, from NOAM = stages down to the first that
// fits, skipping those whose lower bound max(load bound, work / NOAM) (one
// micro-batch goes through every task in turn) cannot beat the best.
HeuristicResult best_heuristic_pattern(const Workload& w, const Platform& platform, const IlpOptions& options,
                                       int budget) {
  // The enumeration stops at 20000 allocations, a corner of the space on long
  // chains: PipeDream's balanced partitions join them.
  std::set<Allocation> allocations;
  for (const Allocation& a : heuristic_allocations(w, platform, options)) allocations.insert(a);
  const std::vector<std::pair<Allocation, int>> eager_list = eager_candidates(w, platform, options);
  if (!options.allocation)
    for (const auto& [a, noam] : eager_list) allocations.insert(a);
  std::vector<std::pair<double, Allocation>> ranked;
  for (const Allocation& a : allocations)
    ranked.push_back({pattern_period_bound(a, w, platform, options.copies, options.links), a});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  HeuristicResult result;
  Progress progress(options);
  auto consider = [&](Evaluated& e) {
    progress.tick(result);
    result.memory_needed = std::min(result.memory_needed, e.worst_peak);
    if (!e.fits) return;
    const bool own = e.pattern.copies == options.copies;  // else per micro-batch against the other copies
    std::optional<Pattern>& best = own ? result.best : result.other;
    double& period = own ? result.best_period : result.other_period;
    if (best && e.period / e.pattern.copies >= period / best->copies * (1 - 1e-12)) return;
    best = std::move(e.pattern);
    period = e.period;
  };
  // Lower bounds of k copies (k = options.copies) against the best k-copy pattern.
  auto beaten = [&](double lower) { return result.best && result.best_period <= lower * (1 + 1e-12); };

  struct Missed {
    double bound, work;
    const Allocation* allocation;
  };
  std::vector<Missed> missed;  // contiguous allocations whose kFkB pattern does not fit
  for (const auto& [bound, a] : ranked) {
    if (beaten(bound) || result.evaluated >= budget) break;  // nothing later can beat it
    ++result.evaluated;
    Evaluated e = kfkb(a, w, platform, options);
    if (!e.fits && options.copies == 1 && is_contiguous(a)) missed.push_back({bound, e.work, &a});
    consider(e);
  }
  const bool kfkb_fits = result.best.has_value();
  for (const auto& [a, noam] : eager_list) {
    ++result.evaluated;
    if (std::optional<Evaluated> e = eager(a, noam, w, platform, options)) consider(*e);
  }
  if (kfkb_fits) return result;
  int tries = 0;
  for (const Missed& m : missed) {
    if (beaten(m.bound) || tries >= budget) break;
    for (int noam = devices_used(*m.allocation); noam >= 1; --noam) {
      if (beaten(std::max(m.bound, m.work / noam)) || tries >= budget) break;
      ++tries, ++result.evaluated;
      std::optional<Evaluated> e = eager(*m.allocation, noam, w, platform, options);
      if (!e) continue;
      const bool fits = e->fits;
      consider(*e);
      if (fits) break;  // fewer in flight: a longer period
    }
  }
  return result;
}

HeuristicResult heuristic_memory_needed(const Workload& w, const Platform& platform, const IlpOptions& options,
                                        int budget) {
  HeuristicResult result;
  for (const Allocation& a : heuristic_allocations(w, platform, options, budget)) {
    ++result.evaluated;
    result.memory_needed = std::min(result.memory_needed, kfkb(a, w, platform, options).worst_peak);
  }
  for (const auto& [a, noam] : eager_candidates(w, platform, options)) {
    ++result.evaluated;
    if (const std::optional<Evaluated> e = eager(a, noam, w, platform, options))
      result.memory_needed = std::min(result.memory_needed, e->worst_peak);
  }
  return result;
}

}  // namespace pipesim::ilp
