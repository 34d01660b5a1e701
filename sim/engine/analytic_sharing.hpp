// SimGrid's CM02 bandwidth sharing, replayed for the analytic engine's event
// replay (analytic_replay.cpp): the flows in their data phase on each link,
// their rates by the max-min solver of SimGrid's lmm (saturation rounds,
// maxmin/precision), and their remaining bytes updated lazily as SimGrid's
// Lazy network model does (network_cm02.cpp, Model::next_occurring_event_lazy
// in SimGrid 3.32):
// - a flow's sharing penalty is its route's latency (1 when it has none),
//   so flows on one link share it in inverse proportion to their latency;
// - a flow with no latency is bounded by its route's narrowest link;
// - a Shared link's capacity is split (sum of rates), a FatPipe link bounds
//   each flow on its own (max);
// - after a change (a flow enters its data phase or ends) the links it
//   touches, and every link reachable from them through the flows on them,
//   are solved again, and each flow on them has its remaining bytes updated
//   at the old rate and its end set at the new one.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim::analytic {

class BandwidthSharing {
 public:
  BandwidthSharing(std::size_t tasks, double maxmin_precision, double surf_precision);

  // Link l (an occupancy index, analytic_support.hpp): its bandwidth and policy.
  void set_link(std::uint32_t l, double capacity, bool fatpipe);

  // t enters its data phase at `now` with `bytes` to move over `links`
  // (kept by reference: it must outlive the flow); bound 0: none. weights[i]:
  // the consumption of links[i] per unit of rate (lmm's consumption weight:
  // the flows of a folded job this one stands for), read on Shared links.
  void start(TaskId t, double bytes, double penalty, double bound, const std::vector<std::uint32_t>& links,
             const std::vector<double>& weights, double now);
  void end(TaskId t);  // t's flow leaves its links (its end event fired)
  // The version of t's current end event: events of another version are stale.
  std::uint32_t version(TaskId t) const;

  // Solves the links changed since the last call; `moved(t, end, version)`
  // for each flow whose rate was set again. Returns false when a flow gets no
  // bandwidth (SimGrid aborts there), with its id in *starved.
  bool solve(double now, const std::function<void(TaskId, double, std::uint32_t)>& moved, TaskId* starved);

  bool ever_shared() const { return ever_shared_; }  // two flows ever met on a link

 private:
  struct Flow {
    TaskId task = 0;
    double penalty = 1, bound = 0, remains = 0, rate = 0, last_update = 0, value = 0;
    std::uint32_t mark = 0;
    bool queued = false;
    const std::vector<std::uint32_t>* links = nullptr;
    const std::vector<double>* weights = nullptr;  // per link
  };
  struct Link {
    double capacity = 0, remaining = 0, usage = 0, ratio = 0;  // ratio: remaining / usage
    bool fatpipe = false, dirty = false;
    std::uint32_t mark = 0;
    int light = -1;  // its place among the links still to saturate, or -1
    std::vector<std::uint32_t> flows;
  };
  void collect(std::uint32_t l);
  void max_min();
  void drop_or_keep(Link& link);
  double consumption(const Flow& flow, std::uint32_t l) const;

  double precision_, surf_precision_;
  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> flow_of_;  // per task, or kNone
  std::vector<std::uint32_t> version_;  // per task
  std::vector<std::uint32_t> dirty_;
  std::uint32_t epoch_ = 0;
  bool ever_shared_ = false;
  std::vector<std::uint32_t> component_links_, component_flows_;
  std::vector<std::uint32_t> light_;          // the links still to saturate
  std::vector<std::uint32_t> stack_, queue_;  // scratch of collect and max_min
};

}  // namespace pipesim::analytic
