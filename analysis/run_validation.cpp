#include "analysis/run_validation.hpp"

#include <cmath>

#include "analysis/memory.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

std::string breakdown_text(const MemoryBreakdown& levels) {
  std::string s;
  for (int c = 0; c < kMemoryCategoryCount; ++c)
    if (levels[c] != 0)
      s += (s.empty() ? "" : ", ") + std::string(to_string(static_cast<MemoryCategory>(c))) + " " +
           fmt::bytes(levels[c]);
  return s;
}

// The task whose start raised the device's memory at `time`: a compute task
// of the device, else a transfer arriving there, else one running then.
std::string task_at(const TaskGraph& g, const Timeline& tl, int device, double time,
                    const std::vector<std::string>& names) {
  auto name = [&](TaskId t) { return t < names.size() ? names[t] : g.describe(t); };
  for (int pass = 0; pass < 3; ++pass)
    for (TaskId t = 0; t < g.size(); ++t) {
      const Task& task = g.task(t);
      const bool compute = !is_transfer(task.kind) && task.device == device;
      if (pass == 0 && compute && tl.start[t] == time) return "start of " + name(t);
      if (pass == 1 && is_transfer(task.kind) && task.peer == device && tl.start[t] == time)
        return "start of " + name(t);
      if (pass == 2 && compute && tl.start[t] < time && !(tl.finish[t] <= time)) return "during " + name(t);
    }
  return "";
}

}  // namespace

std::vector<Violation> run_violations(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                      const std::vector<std::string>& names) {
  std::vector<Violation> out;
  if (!timeline.completed()) {
    std::string why = timeline.deadlock;
    if (why.rfind("deadlock: ", 0) == 0) why = why.substr(10);
    out.push_back({"deadlock", why});
  }
  for (const MemoryViolation& v : memory_violations(graph, timeline, platform)) {
    const std::string task = task_at(graph, timeline, v.device, v.time, names);
    out.push_back({"memory",
                   platform.devices[v.device].name + " at t=" + fmt::time(v.time) +
                       (task.empty() ? "" : " (" + task + ")") + " uses " + fmt::bytes(v.used) + " of " +
                       fmt::bytes(v.capacity) + " (" + breakdown_text(v.breakdown) + ")",
                   v.device, v.time});
  }
  return out;
}

}  // namespace pipesim
