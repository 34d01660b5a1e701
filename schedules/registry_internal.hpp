// Exposed for tests only: the canonical names, which tests loop over.
// Product code includes registry.hpp.
#pragma once

#include "schedules/registry.hpp"

namespace pipesim {

// Canonical names, sorted ("1f1b", "gpipe"); aliases are not listed.
std::vector<std::string> schedule_names();

}  // namespace pipesim
