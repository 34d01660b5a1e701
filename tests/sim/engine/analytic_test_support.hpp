// Compares the analytic engine with the SimGrid executor on one graph: the
// SimGrid run happens in a forked child (one SimGrid run per process), the
// Simulation loaded once in the parent.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/engine/simulation.hpp"
#include "studies/forked_run.hpp"

namespace pipesim::testing {

// A forward of FLOPS on DEVICE; a transfer of BYTES from FROM to TO.
inline Task compute(int device, double flops, double priority = 0) {
  Task t;
  t.kind = TaskKind::Forward;
  t.device = device;
  t.amount = flops;
  t.priority = priority;
  return t;
}

inline Task transfer(int from, int to, double bytes, int microbatch = -1) {
  Task t;
  t.kind = TaskKind::Transfer;
  t.device = from;
  t.peer = to;
  t.amount = bytes;
  t.microbatch = microbatch;
  return t;
}

template <class T>
void put(std::string& out, const std::vector<T>& v) {
  const std::size_t n = v.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(v.data()), n * sizeof(T));
}

template <class T>
std::vector<T> take(const std::string& in, std::size_t& at) {
  std::size_t n = 0;
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  std::vector<T> v(n);
  if (n > 0) std::memcpy(v.data(), in.data() + at, n * sizeof(T));  // an empty vector's data() may be null
  at += n * sizeof(T);
  return v;
}

// The timeline SimGrid gives (start, finish, makespan, blocked, deadlock, routes; links by name).
inline Timeline simgrid_timeline(Simulation& simulation, const TaskGraph& graph) {
  const std::string bytes = run_forked([&] {
    const Timeline t = simulation.run(graph);
    std::string out;
    put(out, t.start);
    put(out, t.finish);
    put(out, std::vector<double>{t.makespan});
    put(out, t.blocked);
    put(out, std::vector<char>(t.deadlock.begin(), t.deadlock.end()));
    put(out, t.route_offsets);
    put(out, t.route_links);
    std::vector<char> names;
    for (const LinkInfo& l : t.links) names.insert(names.end(), l.name.c_str(), l.name.c_str() + l.name.size() + 1);
    put(out, names);
    return out;
  });
  Timeline t;
  std::size_t at = 0;
  t.start = take<double>(bytes, at);
  t.finish = take<double>(bytes, at);
  t.makespan = take<double>(bytes, at).at(0);
  t.blocked = take<TaskId>(bytes, at);
  const auto deadlock = take<char>(bytes, at);
  t.deadlock.assign(deadlock.begin(), deadlock.end());
  t.route_offsets = take<std::uint32_t>(bytes, at);
  t.route_links = take<std::uint32_t>(bytes, at);
  const auto names = take<char>(bytes, at);
  for (std::size_t i = 0; i < names.size(); i += std::strlen(names.data() + i) + 1)
    t.links.push_back({names.data() + i, 0});
  return t;
}

inline bool same_time(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

// Every time within 1e-9 relative, everything else equal. Returns whether they were.
inline bool expect_same_timeline(const Timeline& analytic, const Timeline& simgrid, const std::string& what = "") {
  bool same = analytic.start.size() == simgrid.start.size() && analytic.blocked == simgrid.blocked &&
              analytic.deadlock == simgrid.deadlock && analytic.route_offsets == simgrid.route_offsets &&
              analytic.route_links == simgrid.route_links && analytic.links.size() == simgrid.links.size() &&
              same_time(analytic.makespan, simgrid.makespan);
  EXPECT_EQ(analytic.blocked, simgrid.blocked) << what;
  EXPECT_EQ(analytic.deadlock, simgrid.deadlock) << what;
  EXPECT_EQ(analytic.route_links, simgrid.route_links) << what;
  EXPECT_TRUE(same_time(analytic.makespan, simgrid.makespan))
      << what << analytic.makespan << " vs " << simgrid.makespan;
  for (std::size_t i = 0; same && i < analytic.links.size(); ++i)
    same = analytic.links[i].name == simgrid.links[i].name;
  for (std::size_t t = 0; same && t < analytic.start.size(); ++t) {
    if (!same_time(analytic.start[t], simgrid.start[t]) || !same_time(analytic.finish[t], simgrid.finish[t])) {
      ADD_FAILURE() << what << " task " << t << ": analytic [" << analytic.start[t] << ", " << analytic.finish[t]
                    << "] vs SimGrid [" << simgrid.start[t] << ", " << simgrid.finish[t] << "]";
      same = false;
    }
  }
  EXPECT_TRUE(same) << what;
  return same;
}

}  // namespace pipesim::testing
