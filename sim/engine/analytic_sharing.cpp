#include "sim/engine/analytic_sharing.hpp"

#include <algorithm>
#include <limits>

namespace pipesim::analytic {
namespace {

constexpr std::uint32_t kNoFlow = std::numeric_limits<std::uint32_t>::max();

// SimGrid's math_utils: a subtraction that ends below the precision is 0.
void subtract(double& value, double delta, double precision) {
  value -= delta;
  if (value < precision) value = 0;
}

}  // namespace

BandwidthSharing::BandwidthSharing(std::size_t tasks, double maxmin_precision, double surf_precision)
    : precision_(maxmin_precision), surf_precision_(surf_precision), flow_of_(tasks, kNoFlow), version_(tasks, 0) {}

void BandwidthSharing::set_link(std::uint32_t l, double capacity, bool fatpipe) {
  if (l >= links_.size()) links_.resize(l + 1);
  links_[l].capacity = capacity;
  links_[l].fatpipe = fatpipe;
}

std::uint32_t BandwidthSharing::version(TaskId t) const { return version_[t]; }

void BandwidthSharing::start(TaskId t, double bytes, double penalty, double bound,
                             const std::vector<std::uint32_t>& links, const std::vector<double>& weights, double now) {
  std::uint32_t f = 0;
  if (free_.empty()) {
    f = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    f = free_.back();
    free_.pop_back();
  }
  Flow& flow = flows_[f];
  flow.task = t;
  flow.penalty = penalty;
  flow.bound = bound;
  flow.remains = bytes;
  flow.rate = 0;
  flow.last_update = now;
  flow.links = &links;
  flow.weights = &weights;
  flow_of_[t] = f;
  for (const std::uint32_t l : links) {
    links_[l].flows.push_back(f);
    if (!links_[l].dirty) links_[l].dirty = true, dirty_.push_back(l);
  }
}

void BandwidthSharing::end(TaskId t) {
  const std::uint32_t f = flow_of_[t];
  if (f == kNoFlow) return;
  for (const std::uint32_t l : *flows_[f].links) {
    std::vector<std::uint32_t>& on = links_[l].flows;
    on.erase(std::find(on.begin(), on.end(), f));
    if (!links_[l].dirty) links_[l].dirty = true, dirty_.push_back(l);
  }
  flow_of_[t] = kNoFlow;
  ++version_[t];
  free_.push_back(f);
}

// The links reachable from l through the flows on them (lmm's
// update_modified_cnst_set_rec), and those flows.
void BandwidthSharing::collect(std::uint32_t l) {
  stack_.assign(1, l);
  while (!stack_.empty()) {
    const std::uint32_t at = stack_.back();
    stack_.pop_back();
    if (links_[at].mark == epoch_) continue;
    links_[at].mark = epoch_;
    component_links_.push_back(at);
    for (const std::uint32_t f : links_[at].flows) {
      if (flows_[f].mark == epoch_) continue;
      flows_[f].mark = epoch_;
      component_flows_.push_back(f);
      for (const std::uint32_t next : *flows_[f].links)
        if (links_[next].mark != epoch_) stack_.push_back(next);
    }
  }
}

bool BandwidthSharing::solve(double now, const std::function<void(TaskId, double, std::uint32_t)>& moved,
                             TaskId* starved) {
  if (dirty_.empty()) return true;
  ++epoch_;
  component_links_.clear();
  component_flows_.clear();
  for (const std::uint32_t l : dirty_) {
    links_[l].dirty = false;
    collect(l);
  }
  dirty_.clear();
  max_min();
  // Model::next_occurring_event_lazy: the bytes moved at the old rate, the end at the new one.
  for (const std::uint32_t f : component_flows_) {
    Flow& flow = flows_[f];
    if (flow.remains > 0) subtract(flow.remains, flow.rate * (now - flow.last_update), precision_ * surf_precision_);
    flow.last_update = now;
    flow.rate = flow.value;
    if (flow.rate <= 0) {
      *starved = flow.task;
      return false;
    }
    moved(flow.task, flow.remains > 0 ? now + flow.remains / flow.rate : now, ++version_[flow.task]);
  }
  return true;
}

// A flow's consumption weight on its link l.
double BandwidthSharing::consumption(const Flow& flow, std::uint32_t l) const {
  const auto at = std::find(flow.links->begin(), flow.links->end(), l) - flow.links->begin();
  return (*flow.weights)[static_cast<std::size_t>(at)];
}

// A link leaves the links to saturate once its usage or its remaining capacity is spent.
void BandwidthSharing::drop_or_keep(Link& link) {
  if (link.usage > precision_ && link.remaining > link.capacity * precision_) {
    if (link.light >= 0) link.ratio = link.remaining / link.usage;
    return;
  }
  if (link.light < 0) return;
  const std::uint32_t last = light_.back();
  light_[link.light] = last;
  links_[last].light = link.light;
  light_.pop_back();
  link.light = -1;
}

// lmm's MaxMin::maxmin_solve on the component: every round, the links whose
// remaining capacity per unit of usage is least saturate; their flows get
// that share over their penalty (or their bound, first, if lower).
void BandwidthSharing::max_min() {
  light_.clear();
  for (const std::uint32_t f : component_flows_) flows_[f].value = 0, flows_[f].queued = false;
  for (const std::uint32_t l : component_links_) {
    Link& link = links_[l];
    link.light = -1;
    link.remaining = link.capacity;
    link.usage = 0;
    if (!(link.remaining > link.capacity * precision_)) continue;
    if (link.flows.size() > 1) ever_shared_ = true;
    for (const std::uint32_t f : link.flows) {
      const double weight = 1 / flows_[f].penalty;
      link.usage = link.fatpipe ? std::max(link.usage, weight) : link.usage + consumption(flows_[f], l) * weight;
    }
    if (link.usage > 0) {
      link.light = static_cast<int>(light_.size());
      link.ratio = link.remaining / link.usage;
      light_.push_back(l);
    }
  }
  while (!light_.empty()) {
    double min_usage = -1;
    for (const std::uint32_t l : light_)
      if (min_usage < 0 || links_[l].ratio < min_usage) min_usage = links_[l].ratio;
    queue_.clear();
    for (const std::uint32_t l : light_) {
      if (links_[l].ratio != min_usage) continue;
      for (const std::uint32_t f : links_[l].flows)
        if (flows_[f].value <= 0 && !flows_[f].queued) flows_[f].queued = true, queue_.push_back(f);
    }
    if (queue_.empty()) break;  // nothing left to raise: a flow at 0 is reported starved
    double min_bound = -1;
    for (const std::uint32_t f : queue_) {
      const Flow& flow = flows_[f];
      if (flow.bound > 0 && flow.bound * flow.penalty < min_usage)
        min_bound = min_bound < 0 ? flow.bound * flow.penalty : std::min(min_bound, flow.bound * flow.penalty);
    }
    for (const std::uint32_t f : queue_) {
      Flow& flow = flows_[f];
      flow.queued = false;
      if (min_bound < 0) {
        flow.value = min_usage / flow.penalty;
      } else if (std::abs(min_bound - flow.bound * flow.penalty) < precision_) {
        flow.value = flow.bound;
      } else {
        continue;  // a later round
      }
      for (const std::uint32_t l : *flow.links) {
        Link& link = links_[l];
        if (!link.fatpipe) {
          const double weight = consumption(flow, l);
          subtract(link.remaining, weight * flow.value, link.capacity * precision_);
          subtract(link.usage, weight / flow.penalty, precision_);
        } else {
          link.usage = 0;
          for (const std::uint32_t other : link.flows)
            if (flows_[other].value <= 0) link.usage = std::max(link.usage, 1 / flows_[other].penalty);
        }
        drop_or_keep(link);
      }
    }
  }
}

}  // namespace pipesim::analytic
