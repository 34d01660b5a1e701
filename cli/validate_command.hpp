// pipesim validate PLATFORM WORKLOAD SCHEDULE: every violation of a
// periodic pattern (*.yaml, *.yml) or of explicit per-device orders (*.csv),
// one line each, then a verdict (docs/validate.md).
#pragma once

#include <string>
#include <vector>

namespace pipesim {

extern const char* const kValidateUsage;

// args: what follows "validate". Returns the exit status: 0 valid, 1 invalid,
// 2 usage error (already printed). Bad input throws (InputError or another
// std::exception) before anything is printed or written; main reports it.
int validate_command(const std::vector<std::string>& args);

}  // namespace pipesim
