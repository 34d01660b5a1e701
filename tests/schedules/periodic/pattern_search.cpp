#include "tests/schedules/periodic/pattern_search.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

#include "patterns/link_resources.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/exact_period.hpp"

namespace pipesim {
namespace {

constexpr double kRelative = 1e-12;  // a period must beat the best by more than round-off

// Per micro-batch: each device's F + B time, each link resource's transfers
// (LinkResources under the search's link model); unassigned layers (-1)
// count for nothing. As pattern_timing computes them, so a complete
// allocation gives pattern_period_bound / copies.
class Bound {
 public:
  Bound(const Workload& w, const Platform& p, LinkModel links)
      : w_(w), p_(p), ref_(reference_speed(w, p)), links_(std::make_shared<LinkResources>(p, links)) {}

  double layer_seconds(int layer, int device) const {
    const Layer& l = w_.layers[layer];
    return (cost_flops(l.forward, ref_) + cost_flops(l.backward, ref_)) / p_.devices[device].speed;
  }

  double device_load(const Allocation& a, int device) const {
    double load = 0;
    for (std::size_t l = 0; l < a.size(); ++l)
      if (a[l] == device) load += layer_seconds(static_cast<int>(l), device);
    return load;
  }

  double operator()(const Allocation& a) const {
    const int P = p_.size();
    std::vector<double> device(P, 0);
    std::map<int, double> link;
    for (std::size_t l = 0; l < a.size(); ++l) {
      if (a[l] < 0) continue;
      device[a[l]] += layer_seconds(static_cast<int>(l), a[l]);
      if (l + 1 == a.size() || a[l + 1] < 0 || a[l + 1] == a[l]) continue;
      const double bytes = w_.layers[l].activation;  // a_l up, its gradient down
      if (!(bytes > 0)) continue;
      for (const auto& [from, to] : {std::pair{a[l], a[l + 1]}, std::pair{a[l + 1], a[l]}})
        for (int r : links_->route(from, to)) link[r] += p_.transfer_time(from, to, bytes);
    }
    double bound = *std::max_element(device.begin(), device.end());
    for (const auto& [r, load] : link) bound = std::max(bound, load);
    return bound;
  }

 private:
  const Workload& w_;
  const Platform& p_;
  double ref_;
  std::shared_ptr<LinkResources> links_;  // assigns ids as routes are asked for
};

class Search {
 public:
  Search(const PatternMaker& make, const Workload& w, const Platform& p, const PatternSearch& o)
      : make_(make), w_(w), p_(p), o_(o), bound_(w, p, o.links) {}

  bool hopeless(const Allocation& a) const { return best_ && bound_(a) >= best_->period * (1 - kRelative); }

  void consider(const Allocation& a) {
    if (hopeless(a)) return;
    ++evaluated_;
    Pattern pattern = make_(a);
    const PatternTiming t = pattern_timing(pattern, w_, p_);
    const double period = exact_period(pattern_event_graph(pattern, t)).period / pattern.copies;
    if (best_ && period >= best_->period * (1 - kRelative)) return;
    std::vector<double> peak;
    for (const PatternDeviceMemory& d : pattern_memory(pattern, t, w_, p_.size()).devices) peak.push_back(d.peak);
    if (o_.memory_aware)
      for (int d = 0; d < p_.size(); ++d)
        if (peak[d] > p_.devices[d].memory) return;
    best_ = PatternChoice{a, std::move(pattern), period, std::move(peak), 0};
  }

  std::optional<PatternChoice> result() {
    if (best_) best_->evaluated = evaluated_;
    return best_;
  }

  const Bound& bound() const { return bound_; }

 private:
  const PatternMaker& make_;
  const Workload& w_;
  const Platform& p_;
  const PatternSearch& o_;
  Bound bound_;
  std::optional<PatternChoice> best_;
  int evaluated_ = 0;
};

}  // namespace

std::optional<PatternChoice> best_pattern(const std::vector<Allocation>& allocations, const PatternMaker& make,
                                          const Workload& workload, const Platform& platform,
                                          const PatternSearch& options) {
  Search search(make, workload, platform, options);
  for (const Allocation& a : allocations) search.consider(a);
  return search.result();
}

std::optional<PatternChoice> search_best_pattern(bool contiguous, const PatternMaker& make, const Workload& workload,
                                                 const Platform& platform, const PatternSearch& options) {
  const int L = static_cast<int>(workload.layers.size());
  Search search(make, workload, platform, options);
  std::vector<int> order(L);
  std::iota(order.begin(), order.end(), 0);
  if (!contiguous)  // big layers first: the first leaves are good (LPT), so the cuts come early
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return search.bound().layer_seconds(a, 0) > search.bound().layer_seconds(b, 0);
    });
  AllocationVisitor v;
  v.prune = [&](const Allocation& prefix) { return search.hopeless(prefix); };
  v.visit = [&](const Allocation& a) { search.consider(a); };
  v.load = [&](const Allocation& prefix, int device) { return search.bound().device_load(prefix, device); };
  for_each_allocation(L, platform.size(), contiguous, order, v);
  return search.result();
}

}  // namespace pipesim
