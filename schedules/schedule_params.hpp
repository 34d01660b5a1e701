// Parameters that several schedule families share (schedule: {name, ...}).
// Each throws InputError naming the workload field.
#pragma once

#include <set>
#include <string>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Every parameter is one of `known`.
void check_params(const Workload& w, const std::set<std::string>& known);
// An integer parameter >= 1, or `fallback` when absent.
int positive_param(const Workload& w, const std::string& name, int fallback);
// A number parameter, `fallback` when absent: the whole text must be a
// number that `valid` accepts, else "expected EXPECTED, got 'TEXT'".
double number_param(const Workload& w, const std::string& name, double fallback, const std::string& expected,
                    bool (*valid)(double));
// `weights: flush | 2bw | stashing`, default 2bw (seed 000 eq. 33).
WeightPolicy weights_param(const Workload& w);
// `links: platform | pair`, default platform: which transfers exclude each
// other in a pattern (LinkModel; pair is seed 000's eq. 9).
LinkModel links_param(const Workload& w);

// `memory_policy: lifetime | seed000`, default lifetime: how the pattern
// schedules and pipedream hold communication buffers (docs/memory-model.md).
BufferPolicy memory_policy_param(const Workload& w);
// The `allocation` parameter ("0,1,0": device index per layer), else the
// stage plan's placement (automatic or explicit; contiguous).
Allocation workload_allocation(const Workload& w, const Platform& platform);
// microbatches x iterations, checked to fit an int.
int total_microbatches(const Workload& w);

}  // namespace pipesim
