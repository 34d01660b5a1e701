// Only sim/engine/ uses SimGrid, even from the layers above it.
#include <simgrid/s4u.hpp>
