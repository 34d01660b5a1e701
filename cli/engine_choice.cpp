#include "cli/engine_choice.hpp"

#include "folding/replica_folding.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

// What the analytic engine shared, for the summary's engine line.
std::string exact_because(const AnalyticOutcome& analytic) {
  std::string shared;
  if (analytic.shared) shared = "links shared as SimGrid's max-min";
  if (analytic.shared_executions)
    shared += std::string(shared.empty() ? "" : ", ") + "overlapped executions sharing a device as SimGrid's CPU model";
  return "exact: " + (shared.empty() ? std::string("nothing shared") : shared);
}

}  // namespace

EngineRun run_engine(Simulation& simulation, const TaskGraph& graph, const std::string& choice) {
  if (choice == "simgrid") return {simulation.run(graph), "simgrid", "simgrid"};
  AnalyticOutcome analytic = simulation.run_analytic(graph);
  if (analytic.timeline)
    return {std::move(*analytic.timeline), "analytic", "analytic (" + exact_because(analytic) + ")"};
  if (choice == "analytic")
    throw InputError("--engine", "analytic",
                     "not exact for this run: " + analytic.refusal + "; run it with --engine simgrid");
  return {simulation.run(graph), "simgrid", "simgrid (auto: " + analytic.refusal + ")"};
}

std::optional<EngineRun> run_folded(const Simulation& simulation, const TaskGraph& graph, const Folding& folding,
                                    std::string& why) {
  const Platform view = folded_platform(simulation.platform(), folding);
  AnalyticOutcome analytic = simulation.run_analytic(graph, view);
  if (!analytic.timeline) {
    why = "the analytic engine is not exact for it: " + analytic.refusal;
    return std::nullopt;
  }
  if (!analytic.timeline->completed()) {
    why = "it deadlocks";
    return std::nullopt;
  }
  return EngineRun{std::move(*analytic.timeline), "analytic",
                   "analytic (" + exact_because(analytic) + "; folded: " + folding.what + ")"};
}

}  // namespace pipesim
