// Platforms a sweep spec gives as "cluster ARGS": written by
// `make_platform.py cluster ARGS` (docs/platform-format.md) before any run.
#pragma once

#include <string>

#include "studies/sweep_plan.hpp"

namespace pipesim {

// Writes every distinct cluster of PLAN (in grid order: cluster-0.yaml,
// cluster-1.yaml, ...; a torus or dragonfly .xml) into a new temporary folder and returns it ("" when
// PLAN has none). A generator failure removes the folder and throws
// InputError "SPEC: platform: 'cluster ARGS': WHAT" (its last stderr line).
std::string generate_clusters(const SweepPlan& plan, const std::string& spec);

// Moves the generated files from TEMPORARY into DIR/platforms and points
// every cluster run of PLAN at its file; removes TEMPORARY.
void install_clusters(SweepPlan& plan, const std::string& temporary, const std::string& dir);

}  // namespace pipesim
