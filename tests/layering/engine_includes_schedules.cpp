// The engine knows no schedule.
#include "schedules/registry.hpp"
