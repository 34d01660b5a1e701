// --engine simgrid|analytic|auto: which engine turns the task graph into a timeline.
#pragma once

#include <optional>
#include <string>

#include "sim/engine/simulation.hpp"
#include "sim/folding.hpp"

namespace pipesim {

struct EngineRun {
  Timeline timeline;
  std::string engine;       // "analytic" or "simgrid", as the JSON says
  std::string description;  // the summary's line: the engine, and why SimGrid when auto fell back
};

// analytic: the analytic engine or, when it is not exact, an InputError on
// --engine naming the first conflict; simgrid: SimGrid; auto: analytic when
// exact, else SimGrid from the start.
EngineRun run_engine(Simulation& simulation, const TaskGraph& graph, const std::string& choice);

// A folded job's graph (docs/folding.md) on the analytic engine, over the
// folded paths: nullopt, with `why`, when that is not exact or the run does
// not complete (the whole job is then simulated, to say why).
std::optional<EngineRun> run_folded(const Simulation& simulation, const TaskGraph& graph, const Folding& folding,
                                    std::string& why);

}  // namespace pipesim
