// SimGrid 3.32 allows one engine per process: studies, sweeps and
// benchmarks run each simulation in a forked child.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pipesim {

// Runs work() in a forked child and returns what it returned. Throws
// std::runtime_error with the child's exception message, or how it died.
std::string run_forked(const std::function<std::string()>& work);

// Runs each work() in its own forked child, all at once, and returns what
// each returned, in order. Throws as run_forked for the first that failed
// (after every child has ended).
std::vector<std::string> run_forked_all(const std::vector<std::function<std::string()>>& works);

}  // namespace pipesim
