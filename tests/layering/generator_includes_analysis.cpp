// A generator knows nothing of what reads a timeline.
#include "analysis/metrics.hpp"
