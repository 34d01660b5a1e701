// The exact fast engine (`--engine analytic`): evaluates a task graph without
// SimGrid, giving the timeline the SimGrid executor (executor.hpp) would give,
// wherever that is provably the same, and refusing otherwise.
//
// Under pipesim's SimGrid settings (CM02, no cross-traffic, no TCP window,
// TI or Lazy CPUs) a transfer alone on its links takes exactly latency +
// bytes / bottleneck bandwidth and a computation amount / (share x) speed.
// Transfers whose data phases meet on a link share it as CM02 does: SimGrid's
// max-min, each flow weighted by its route's latency, re-solved whenever a
// flow starts or ends (analytic_sharing.hpp; a transfer holds no bandwidth
// while its route's latency elapses, FatPipe links bound each flow alone, the
// two directions of a split-duplex link are two links). While the lanes
// running on a resource never take more than its whole speed, the run is
// then a list schedule with the executor's dispatch rules: ordered lanes
// follow their order, lanes without one take the lowest priority among the
// tasks ready at that instant.
// The evaluation replays SimGrid's rounds (clock sums, events closer than
// surf/precision completing together, the zero-flop tick before a greedy
// choice) so that times agree to rounding and choices exactly. It checks
// the conditions as it goes and stops at the first one that fails.
//
// Graphs whose every compute task is in its device's order, on one lane,
// (all shipped schedules but master and split) and whose transfers never
// meet on a Shared link need no replay: a start is the latest finish of
// what the task waits for, and the Shared links are checked afterwards,
// interval by interval; where two transfers meet, the replay runs instead.
// Its times differ from the replay's by rounding and by SimGrid's merging of
// events closer than surf/precision (1 ns), which the replay reproduces.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct AnalyticSettings {
  double timing_precision = 1e-9;  // SimGrid's surf/precision (seconds)
  double maxmin_precision = 1e-5;  // SimGrid's maxmin/precision (the bandwidth sharing's)
  bool bounded_cpu = false;        // cpu/optim Lazy (executions can be bounded) rather than TI
  // Graphs whose compute tasks are all ordered, one lane per device, take a
  // longest-path pass instead of the event replay (tests turn it off to compare).
  bool list_fast_path = true;
  // The longest-path pass only: every transfer at its route's full
  // bandwidth, shared links or not (see contention_free_timeline).
  bool ignore_sharing = false;
  // The longest-path pass only: stop at the first conflict it meets (the
  // event replay then shares the link), rather than finding the earliest.
  bool stop_at_conflict = false;
  // The longest-path pass only: each task's route in the timeline. A bound
  // (contention_free_timeline) needs the times alone.
  bool routes = true;
};

struct AnalyticOutcome {
  std::optional<Timeline> timeline;  // present when the evaluation is exact
  std::string refusal;               // otherwise the first reason it is not, one line
  bool shared = false;               // flows met on a link, shared as SimGrid shares them
  bool shared_executions = false;    // executions met on a resource, shared as SimGrid's CPU model shares them
};

// Why these SimGrid settings (effective_simgrid_config) or this platform make
// the analytic engine inexact, e.g. "--cfg network/model:LV08 changes
// transfer times"; empty when they do not. Fills settings from the config.
std::string analytic_refusal(const std::map<std::string, std::string>& effective_config, const Platform& platform,
                             AnalyticSettings& settings);

// Evaluates the graph. Throws InputError as Simulation::run does on amounts,
// resources and shares out of range; a deadlock comes back as in the
// executor (Timeline::blocked, Timeline::deadlock).
AnalyticOutcome run_analytic(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings = {});

// The longest-path pass with every transfer alone on its links: SimGrid's
// timeline where nothing shares a link, and never later than it where
// something does (sharing only slows a transfer, and with every compute
// task in its device's order nothing can start earlier for it). A lower
// bound for studies (`pipesim plan`). A graph with lanes gets the longest
// path with every execution at its rate alone: no timeline SimGrid gives
// (lanes that share a resource slow each other), a lower bound all the
// same. nullopt for a graph the pass does not take (a compute task outside
// its device's order, shares without lanes) and on a deadlock. Its timeline
// has times, no routes.
std::optional<Timeline> contention_free_timeline(const TaskGraph& graph, const Platform& platform);

}  // namespace pipesim
