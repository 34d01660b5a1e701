// Helpers for the master-scheduler tests: identical unit stages, and many
// independent task graphs run side by side in ONE SimGrid run (SimGrid allows
// one engine per process), each on its own devices, then split back.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "schedules/master/master_scheduler_internal.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::testing {

// Seed 003's time unit: on a 1 Tf worker a forward and a backward each take
// 1 s (the seed's diagrams draw F and B one column each); Table 1's unit of
// time is F + B = 2 s.
constexpr double kUnitFlops = 1e12;
constexpr double kTableUnit = 2.0;  // seconds per Table 1 time unit

// Identical stages with free transfers (0-byte tensors and weights).
inline std::vector<MasterStage> unit_stages(int S) { return uniform_master_stages(S, kUnitFlops, kUnitFlops, 0, 0); }

// n hosts "w0".."w(n-1)" at 1 Tf and no links: enough when every transfer
// carries 0 bytes (the engine completes those at once, without a route).
inline std::string hosts_platform(int n) {
  return write_file("hosts-" + std::to_string(n) + ".xml", hosts_platform_xml(n, "w"));
}

// g's tasks, dependencies and memory appended to `into` with devices shifted by `offset`.
inline void append_graph(TaskGraph& into, const TaskGraph& g, int offset) {
  const TaskId base = static_cast<TaskId>(into.size());
  std::vector<TaskId> deps;
  for (TaskId t = 0; t < g.size(); ++t) {
    Task task = g.task(t);
    task.device += offset;
    if (task.peer >= 0) task.peer += offset;
    deps.clear();
    for (const TaskId* d = g.deps_begin(t); d != g.deps_end(t); ++d) deps.push_back(*d + base);
    into.add(task, deps);
  }
  for (const TaskMemoryEffect& e : g.memory_effects())
    into.add_memory(e.task + base, e.device + offset, e.category, e.when, e.bytes);
  for (const StaticMemory& m : g.static_memory()) into.add_static_memory(m.device + offset, m.category, m.bytes);
  for (int d = 0; d < g.device_count(); ++d)
    for (TaskId t : g.device_order(d)) into.append_to_order(t + base);
}

// One simulation of all graphs side by side; each gets back its own timeline
// (task ids and devices as in its graph; makespan = its own latest finish).
inline std::vector<Timeline> run_side_by_side(const std::vector<const TaskGraph*>& graphs,
                                              const std::string& platform_file) {
  int devices = 0;
  for (const TaskGraph* g : graphs) devices += g->device_count();
  TaskGraph all(devices);
  std::vector<TaskId> base;
  int offset = 0;
  for (const TaskGraph* g : graphs) {
    base.push_back(static_cast<TaskId>(all.size()));
    append_graph(all, *g, offset);
    offset += g->device_count();
  }
  Simulation sim(platform_file);
  const Timeline tl = sim.run(all);
  std::vector<Timeline> out;
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    Timeline t;
    const TaskId b = base[i];
    const std::size_t n = graphs[i]->size();
    t.start.assign(tl.start.begin() + b, tl.start.begin() + b + n);
    t.finish.assign(tl.finish.begin() + b, tl.finish.begin() + b + n);
    t.links = tl.links;
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::uint32_t* l = tl.route_begin(b + k); l != tl.route_end(b + k); ++l) t.route_links.push_back(*l);
      t.route_offsets.push_back(static_cast<std::uint32_t>(t.route_links.size()));
      if (std::isnan(t.finish[k]))
        t.blocked.push_back(static_cast<TaskId>(k));
      else
        t.makespan = std::max(t.makespan, t.finish[k]);
    }
    if (!t.blocked.empty()) t.deadlock = tl.deadlock;
    out.push_back(std::move(t));
  }
  return out;
}

// A Platform view of n identical devices (names "w<i>") for the analysis.
inline Platform named_devices(int n) {
  Platform p;
  for (int i = 0; i < n; ++i) p.devices.push_back({"w" + std::to_string(i), 1e12, 0, "gpu"});
  p.paths.assign(static_cast<std::size_t>(n) * n, Path{});
  return p;
}

}  // namespace pipesim::testing
