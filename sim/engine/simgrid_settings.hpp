// The SimGrid settings pipesim accepts after --cfg, checked before SimGrid
// sees them: SimGrid 3.32 aborts or segfaults on many bad values
// (network/optim:Bogus, maxmin/precision:-1, network/bandwidth-factor:0, ...).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pipesim {

// pipesim's defaults, applied before the user's settings (docs/platform-format.md).
const std::vector<std::string>& default_simgrid_config();

// Throws InputError("--cfg", setting, ...) unless the setting is "KEY:VALUE"
// with a supported key and an accepted value.
void check_simgrid_setting(const std::string& setting);

// The value each key ends with: defaults, then the settings in order (last wins).
std::map<std::string, std::string> effective_simgrid_config(const std::vector<std::string>& extra_config);

}  // namespace pipesim
