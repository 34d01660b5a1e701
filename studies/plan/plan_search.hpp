// `pipesim plan`'s search (docs/plan.md): every candidate of the plan space
// screened by its bounds (studies/plan/plan_bounds.hpp), then simulated in
// the order of its time bound, until no candidate left can enter the top K.
// A candidate is never dropped on a guess: it is either refused by the
// loader or a generator (with their error), over memory by a bound that
// never exceeds its simulated peak, slower by a bound than K simulated
// runs, or simulated.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "studies/plan/plan_bounds.hpp"
#include "studies/plan/plan_space.hpp"
#include "studies/sweep_results.hpp"

namespace pipesim {

enum class PlanFate {
  NotApplicable,  // the workload loader or the generator refuses it (PlanEntry::reason)
  OverMemory,     // its memory bound exceeds the device's capacity
  Screened,       // within memory by its bound, not simulated (yet: --screen-only stops here)
  Slower,         // its time bound is no better than the K-th simulated run
  Simulated,      // PlanEntry::run holds the run
  SameStages,     // its twin of the other partition rule has the same stages: that one is weighed
};
const char* fate_name(PlanFate fate);

struct PlanEntry {
  PlanCandidate candidate;
  PlanFate fate = PlanFate::NotApplicable;
  std::string reason;  // NotApplicable: the error line
  PlanBounds bounds;
  std::optional<RunRecord> run;
  bool given = false;  // the workload's own configuration: always simulated, its rank reported
  // A memory-saving twin not built yet (PlanScreen::defer_memory_saving):
  // its time bound is its plain candidate's, which rematerialization only
  // lengthens; its memory bound is unknown until it is built.
  bool deferred = false;
  // A ZeRO 1 candidate's ZeRO 2 twin (an index into the entries), whose
  // bounds its screening gives: the same pipeline but for the gradients'
  // static memory (plan_bounds' SHARDED_GRADIENTS). None where absent.
  std::size_t sharded_twin = static_cast<std::size_t>(-1);
  // Its ZeRO 0 twin, likewise (plan_bounds' WHOLE_OPTIMIZER): screened only.
  std::size_t unsharded_twin = static_cast<std::size_t>(-1);
  bool valid() const { return run && run->status == "valid"; }
  double iteration_time() const;  // the run's; infinity without a valid run
};

// What a plan ranks by: the simulated iteration time, the simulated peak
// memory per GPU (the largest device's), or the cost, GPU-seconds per
// iteration (iteration time x the GPUs the layout occupies); ties by
// iteration time.
enum class PlanObjective { Time, Memory, Cost };
// The entry's value for the objective (infinity without a valid run), and
// its bound (never above that value when it runs).
double objective_value(const PlanEntry& entry, PlanObjective objective);
double objective_bound(const PlanEntry& entry, PlanObjective objective);

// The screening's input: the user's workload, the platform (loaded), the space.
struct PlanScreenCache;  // the parsed workload and its timed layers, kept from one screening to the next
struct PlanScreen {
  std::string workload;  // path
  const Platform* platform = nullptr;
  PlanSpaceLimits limits;
  // The workload's own configuration, added to the space when it lies outside it.
  std::optional<PlanCandidate> given;
  int jobs = 1;  // screening processes (forked), each a contiguous share of the candidates
  // Pipelines over memory get a twin that saves memory on the stages over
  // capacity, by seed 002's program SAVING_POLICY (remat or both).
  bool memory_saving = true;
  std::string saving_policy = "remat";
  // The twins are left unbuilt (deferred), for simulate_plan to build
  // those whose plain time bound comes within reach: a search by time only.
  bool defer_memory_saving = false;
  mutable std::shared_ptr<PlanScreenCache> cache;
};
// Called as candidates are screened: how many of how many.
using PlanProgress = std::function<void(std::size_t done, std::size_t total)>;

// Every candidate with its bounds: Screened, OverMemory, NotApplicable or
// SameStages; after the plan space, the memory-saving twins of the
// candidates over memory.
std::vector<PlanEntry> screen_plan(const PlanScreen& screen, const PlanProgress& progress = nullptr);

// Runs the given configuration, then the candidates that can still enter
// the top K by the objective, `batch` at a time through SIMULATE (which
// returns one record per entry index given, in the same order), best bound
// first; marks the others Slower (their bound is no better than the K-th
// run's value).
// After each batch PROGRESS hears how many runs are done and how many
// candidates are still within reach (a bound below the K-th run's value):
// at most that many more will run.
// A deferred twin whose bound comes within reach is built first, through
// BUILD (screen_deferred), and weighed by its own bounds.
// SIMULATE may also give the run of a chosen entry's ZeRO 2 twin (its
// sharded_twin, still Screened) by setting that entry's run: the twin is
// then Simulated with it, and not run.
using PlanSimulator = std::function<std::vector<RunRecord>(const std::vector<std::size_t>& entries)>;
using PlanBuilder = std::function<void(const std::vector<std::size_t>& entries)>;
void simulate_plan(std::vector<PlanEntry>& entries, std::size_t top, std::size_t batch, const PlanSimulator& simulate,
                   const PlanProgress& progress = nullptr, PlanObjective objective = PlanObjective::Time,
                   const PlanBuilder& build = nullptr);
// Builds the deferred entries IDS: their own bounds and fate, as screen_plan would give them.
void screen_deferred(const PlanScreen& screen, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids);

// The valid runs by the objective, then iteration time (ties by candidate
// order): entry indices.
std::vector<std::size_t> plan_ranking(const std::vector<PlanEntry>& entries,
                                      PlanObjective objective = PlanObjective::Time);
// Among valid runs, those no other beats on both iteration time and peak memory, by time.
std::vector<std::size_t> plan_front(const std::vector<PlanEntry>& entries);

// The workload's own configuration as a candidate: its layout (pp from the
// devices left when not given), micro-batches, schedule and recompute.
PlanCandidate given_candidate(const Workload& workload, int gpus);

// A column of a run's metrics (studies/sweep_results.hpp), "" when absent;
// as a number, NaN when absent.
std::string run_metric(const RunRecord& record, const std::string& column);
double run_number(const RunRecord& record, const std::string& column);

}  // namespace pipesim
