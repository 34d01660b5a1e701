// A generator knows nothing of SimGrid: the engine is not on its include path.
#include "sim/engine/simulation.hpp"
