// pipesim study PLATFORM PROFILE_OR_WORKLOAD --memory LIMITS -o DIR: seed
// 000 §7's memory-period comparison, PipeDream's configurations against the
// ILP's patterns (docs/study.md).
#pragma once

#include <string>
#include <vector>

namespace pipesim {

extern const char* const kStudyUsage;

// args: what follows "study". Returns 0 when the outputs are written, 2 on a
// usage error (already printed). Bad input throws InputError; main reports it.
int study_command(const std::vector<std::string>& args);

}  // namespace pipesim
