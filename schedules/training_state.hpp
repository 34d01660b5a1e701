// What every schedule family shares about training beyond its pipeline:
// the memory a workload declares per layer and per device (stashes larger
// than the layer's input, transient workspaces, optimizer state, gradients
// at their precision, a runtime reserve, tied weights held once) and the
// optimizer step at the end of the iteration. Applied by generate() to the
// graph a family built, so every family accounts them the same way
// (docs/memory-model.md, "Training state").
#pragma once

#include <vector>

#include "sim/memory_saving_summary.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Adds the effects, static memory and Update tasks above; changes nothing
// for a workload that declares none of them (hand-written layers with no
// stash, workspace, optimizer or reserve). Throws InputError when the
// optimizer step cannot be timed (no memory bandwidth). On a stage that saves
// memory (seed 002), the program holds the stash and workspaces instead.
// PROGRAMS: the family's stages that save memory (their layers on their device).
void add_training_state(TaskGraph& graph, const Workload& workload, const Platform& platform,
                        const std::vector<StageMemorySaving>& programs = {});

// The static bytes a device that holds layers FIRST..LAST has beyond the
// weights and the equal gradient buffer every family places: gradients at
// their precision, optimizer state, the runtime reserve, as
// add_training_state adds them and a parallel job shards them (ZeRO-1 the
// state, ZeRO-2 the gradients too: then below 0 for the buffer's shards).
// Tied weights held once are not subtracted: never below what the run holds.
double training_state_bytes(const Workload& workload, int first, int last);

}  // namespace pipesim
