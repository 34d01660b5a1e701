#include "cli/engine_choice.hpp"

#include "sim/input_error.hpp"

namespace pipesim {

EngineRun run_engine(Simulation& simulation, const TaskGraph& graph, const std::string& choice) {
  if (choice == "simgrid") return {simulation.run(graph), "simgrid", "simgrid"};
  AnalyticOutcome analytic = simulation.run_analytic(graph);
  if (analytic.timeline)
    return {
        std::move(*analytic.timeline), "analytic",
        analytic.shared ? "analytic (exact: links shared as SimGrid's max-min)" : "analytic (exact: nothing shared)"};
  if (choice == "analytic")
    throw InputError("--engine", "analytic",
                     "not exact for this run: " + analytic.refusal + "; run it with --engine simgrid");
  return {simulation.run(graph), "simgrid", "simgrid (auto: " + analytic.refusal + ")"};
}

}  // namespace pipesim
