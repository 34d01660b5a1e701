// Schedule names -> task graphs. Every generator family registers its
// schedules here from its own folder (schedules/<family>/); the registry
// knows none of them.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/folding.hpp"
#include "sim/memory_saving_summary.hpp"
#include "sim/platform.hpp"
#include "sim/split_plan.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// A generated schedule: the task graph the engine runs and, when the schedule
// is periodic, the pattern it follows (its exact period and analytic memory
// are printed beside the run).
struct GeneratedSchedule {
  // A constructor, not an aggregate, so that builders may leave out the fields after pattern.
  GeneratedSchedule(TaskGraph graph_ = TaskGraph(), std::optional<Pattern> pattern_ = std::nullopt)
      : graph(std::move(graph_)), pattern(std::move(pattern_)) {}
  TaskGraph graph;
  std::optional<Pattern> pattern;
  std::optional<SplitPlan> split{};              // seed 004's `split`: stages, shares beta, eq. 1's period
  std::vector<StageMemorySaving> memory_saving;  // per stage, when the workload saves memory
  // What the pattern was unrolled with, when that is not pattern_timing(pattern,
  // workload, platform): a memory-saving program's steps and durations.
  std::optional<PatternTiming> pattern_timing{};
  // A flush schedule's iteration written as a pattern (k = M copies), built
  // only when asked (--export-pattern). It is not `pattern`: the run itself
  // is one period, so a figure computed from it could only restate the run,
  // and building it cost more than the simulation at large M.
  std::function<Pattern()> iteration_pattern{};
  // A job folded to one replica (parallelism/, docs/folding.md); copies 1 when not.
  Folding folding{};
};

// What a schedule will build, counted by its family before building it, so
// that a run too large for the machine is one clear error instead of a
// std::bad_alloc after minutes (sim/memory_limit.hpp: estimated_memory_bytes).
struct ScheduleSize {
  double tasks = 0;          // tasks of the task graph, transfers included
  double pattern_items = 0;  // ops and transfers of its pattern (0 if none)
  // For the message: what one micro-batch goes through, "8 stages".
  std::string pieces;
  // The pattern is built only for --export-pattern (iteration_pattern).
  bool pattern_on_demand = false;
  // Memory the builder needs beside what it builds (the ILP's model), freed
  // before the run, so refused on its own: the parameter that sets it and
  // what it is, for the message. 0: none.
  double builder_bytes = 0;
  std::string builder_field{}, builder_what{};
  // The devices its stages will run on, where the family knows it before
  // building (0: unknown): a job's check that every pipeline rank runs
  // something (check_pipeline_ranks) can then refuse it unbuilt.
  int ranks = 0;
};

// Builds a schedule for workload.iterations iterations of
// workload.microbatches micro-batches (both checked >= 1 by the registry);
// checks its own parameters and throws InputError on bad ones.
using ScheduleBuilder = GeneratedSchedule (*)(const Workload& workload, const Platform& platform);

// What the builder will build, counted without building it (for the memory
// estimate). Must not throw on parameters the
// builder would reject: it runs first.
using ScheduleSizer = ScheduleSize (*)(const Workload& workload, const Platform& platform);

// Called from a static initializer in each family's folder:
//   const bool registered = register_schedule({"gpipe"}, build_gpipe, gpipe_size);
// names: canonical first, then aliases. Without a sizer the estimate assumes
// a task per layer and micro-batch and a transfer between any two layers.
// Returns true.
bool register_schedule(std::vector<std::string> names, ScheduleBuilder build, ScheduleSizer size = nullptr);

// Limits on what a run may use. The command line's --max-memory SIZE.
struct RunLimits {
  double max_memory_bytes = 0;  // 0: the default (default_memory_limit())
  bool export_pattern = false;  // --export-pattern: a pattern built on demand counts too
};

// Checks the costs (check_cost_times) and the memory the run needs
// (estimated_memory_bytes of the family's ScheduleSize, against the limit),
// then plans the stages and builds the named schedule. Throws InputError
// for unknown schedules or parameters, and for runs over the limit, before
// building anything.
GeneratedSchedule generate(const Workload& workload, const Platform& platform, const RunLimits& limits = {});

// The family's estimate of the graph it would build (what generate checks
// against the memory limit), before anything is built. Throws InputError as
// check_schedule does.
ScheduleSize schedule_size(const Workload& workload, const Platform& platform);

// Declares that the schedule registered under this canonical name runs the
// workload's memory_saving option; generate() refuses the option for the
// others (InputError naming memory_saving). Returns true.
bool register_memory_saving(const std::string& canonical_name);
// Declares that the schedule (canonical name) splits an automatic pipeline
// by time where the workload says placement.partition: auto (it places
// stages with make_stage_plan); the others split it evenly. Returns true.
bool register_balanced_by_default(const std::string& canonical_name);
// What placement.partition: auto gives the schedule: "balanced" or "even".
std::string auto_partition(const std::string& canonical_name);

// Whether the schedule (canonical name) runs the memory_saving option.
bool runs_memory_saving(const std::string& canonical_name);

// Declares the parameters the schedule (canonical name) takes, so that
// check_schedule refuses another without a platform or a build (a sweep
// checks every run before any runs). Returns true.
bool register_schedule_params(const std::string& canonical_name, std::set<std::string> params);

// What can be checked of the workload's schedule before a platform is
// loaded: its name, and its parameters where the family declared them.
// Throws InputError naming the workload's schedule field.
void check_schedule(const Workload& workload);

// Every schedule name, canonical names sorted with their aliases:
// "1f1b (1f1b-flush, pipedream-flush, schedule1f1b), 1f1b-pattern, ...".
std::string schedule_names_text();
// The canonical name of a schedule given by any of its names ("zbv" for
// "schedulezbvzerobubble"); the name itself when no schedule has it.
std::string canonical_schedule_name(const std::string& name);

}  // namespace pipesim
