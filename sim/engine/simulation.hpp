// Runs task graphs on a SimGrid platform. One Simulation per process:
// SimGrid 3.32 keeps one engine (and one clock) per process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

class SimGridPathSource;

class Simulation {
 public:
  // Loads the platform; extra_config holds "key:value" SimGrid settings that
  // override the defaults (default_simgrid_config(): with them a transfer of
  // s bytes alone on a route takes exactly latency + s / bandwidth). Throws
  // InputError on a bad platform or setting; a SimGrid abort or crash while
  // loading or running ends the process with one error line and exit code 2
  // (SimGridGuard). Paths are found when first asked for, and only while
  // this Simulation lives. A platform estimated to need more than
  // MAX_MEMORY_BYTES (0: default_memory_limit()) is refused before SimGrid
  // builds it (platform_size.hpp).
  explicit Simulation(const std::string& platform_file, const std::vector<std::string>& extra_config = {},
                      double max_memory_bytes = 0);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const Platform& platform() const { return platform_; }
  // Executes the graph once; a schedule that cannot progress comes back with
  // Timeline::blocked and Timeline::deadlock filled in. Throws InputError on
  // a task SimGrid cannot run (an amount that is not finite).
  Timeline run(const TaskGraph& graph);
  // The same graph evaluated without SimGrid (analytic_engine.hpp): the
  // timeline run() would give, or why that is not provably the same (these
  // settings, this platform, or the first conflict). Leaves run() available.
  AnalyticOutcome run_analytic(const TaskGraph& graph) const;
  // The same on a view of this platform with other paths (a folded job's,
  // folding/replica_folding.hpp): same devices and links, SimGrid's settings.
  AnalyticOutcome run_analytic(const TaskGraph& graph, const Platform& view) const;

 private:
  struct SimGridState;
  std::unique_ptr<SimGridState> simgrid_;
  std::shared_ptr<SimGridPathSource> paths_;
  Platform platform_;
  bool ran_ = false;
};

}  // namespace pipesim
