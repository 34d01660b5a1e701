// A generator may use the contracts and the pattern model.
#include "patterns/pattern.hpp"
#include "sim/task_graph.hpp"
