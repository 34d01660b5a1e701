// SimGrid 3.32 allows one engine per process: studies, sweeps and
// benchmarks run each simulation in a forked child.
#pragma once

#include <functional>
#include <string>

namespace pipesim {

// Runs work() in a forked child and returns what it returned. Throws
// std::runtime_error with the child's exception message, or how it died.
std::string run_forked(const std::function<std::string()>& work);

}  // namespace pipesim
