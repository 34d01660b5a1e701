// Runs task graphs on a SimGrid platform. One Simulation per process:
// SimGrid 3.32 keeps one engine (and one clock) per process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// SimGrid settings applied before the user's, so that a transfer of s bytes
// over a route takes exactly latency + s / bandwidth when alone (CM02 with
// no cross-traffic penalty and no TCP window cap); see docs/platform-format.md.
const std::vector<std::string>& default_simgrid_config();

class Simulation {
 public:
  // Loads the platform; extra_config holds "key:value" SimGrid settings that
  // override the defaults. Throws InputError on a bad platform.
  explicit Simulation(const std::string& platform_file,
                      const std::vector<std::string>& extra_config = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const Platform& platform() const { return platform_; }
  // Executes the graph once; a schedule that cannot progress comes back with
  // Timeline::blocked and Timeline::deadlock filled in.
  Timeline run(const TaskGraph& graph);

 private:
  struct SimGridState;
  std::unique_ptr<SimGridState> simgrid_;
  Platform platform_;
  bool ran_ = false;
};

}  // namespace pipesim
