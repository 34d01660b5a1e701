// The contracts lie below every stage.
#include "schedules/registry.hpp"
