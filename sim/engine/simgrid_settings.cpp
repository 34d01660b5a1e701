#include "sim/engine/simgrid_settings.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "sim/input_error.hpp"

namespace pipesim {

const std::vector<std::string>& default_simgrid_config() {
  static const std::vector<std::string> config = {
      "network/model:CM02",      // no bandwidth/latency correction factors
      "network/crosstraffic:0",  // opposite flows do not slow each other
      "network/TCP-gamma:0",     // no window cap on long-latency routes
      "cpu/optim:Lazy",          // bounds executions (Task::share < 1) and runs multi-core hosts; TI cannot
  };
  return config;
}

namespace {

// Returns an empty string when the value is accepted, else what was expected.
using Check = std::function<std::string(const std::string&)>;

// One supported setting: its key, what it accepts (documentation beside the check).
struct SupportedSetting {
  std::string key;
  std::string accepts;
};

struct Rule {
  SupportedSetting setting;
  Check check;
};

Check one_of(const std::vector<std::string>& values) {
  return [values](const std::string& value) {
    for (const auto& v : values)
      if (v == value) return std::string();
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
    return "expected one of " + list;
  };
}

// A plain number (no unit), all of the text, and one SimGrid's std::stod
// takes: not out of range (denormals like 1e-320 are).
bool parse_number(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

Check number(double min, bool min_included, double max, const std::string& expected) {
  return [=](const std::string& text) {
    double v = 0;
    if (!parse_number(text, v) || !std::isfinite(v) || v < min || (v == min && !min_included) || v > max)
      return expected;
    return std::string();
  };
}

constexpr double kHuge = 1.7976931348623157e308;

// Precisions above 1e-3 change results (surf/precision:1e-2 shortens gpt2-xl
// by 9 %) or abort (maxmin/precision:10); SimGrid's defaults are 1e-5 (maxmin)
// and 1e-9 (surf).
const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {{"network/model", "CM02, LV08, IB, SMPI, or Constant on a platform without links"},
       one_of({"CM02", "LV08", "IB", "SMPI", "Constant"})},
      {{"network/optim", "Lazy, Full"}, one_of({"Lazy", "Full"})},
      {{"cpu/optim", "TI, Lazy, Full"}, one_of({"TI", "Lazy", "Full"})},
      {{"host/model", "compound, default, ptask_L07"}, one_of({"compound", "default", "ptask_L07"})},
      {{"network/crosstraffic", "0 or 1 (also yes/no, on/off, true/false)"},
       one_of({"0", "1", "yes", "no", "on", "off", "true", "false"})},
      {{"network/TCP-gamma", "a finite number >= 0 (bytes; 0 = no cap)"},
       number(0, true, kHuge, "expected a finite number >= 0 (bytes; 0 removes the cap)")},
      {{"network/bandwidth-factor", "a positive finite number"},
       number(0, false, kHuge, "expected a positive finite number")},
      {{"network/latency-factor", "a positive finite number"},
       number(0, false, kHuge, "expected a positive finite number")},
      {{"network/weight-S", "a finite number >= 0"}, number(0, true, kHuge, "expected a finite number >= 0")},
      {{"maxmin/precision", "a number in (0, 1e-3]"}, number(0, false, 1e-3, "expected a number in (0, 1e-3]")},
      {{"surf/precision", "a number in (0, 1e-3]"}, number(0, false, 1e-3, "expected a number in (0, 1e-3]")},
  };
  return table;
}

}  // namespace

void check_simgrid_setting(const std::string& setting) {
  const auto colon = setting.find(':');
  if (colon == std::string::npos || colon == 0)
    throw InputError("--cfg", setting, "expected a SimGrid setting KEY:VALUE such as network/model:LV08");
  const std::string key = setting.substr(0, colon), value = setting.substr(colon + 1);
  std::string keys;
  for (const auto& r : rules()) {
    if (r.setting.key == key) {
      const std::string expected = r.check(value);
      if (!expected.empty()) throw InputError("--cfg", setting, expected);
      return;
    }
    keys += (keys.empty() ? "" : ", ") + r.setting.key;
  }
  throw InputError("--cfg", setting, "unsupported setting '" + key + "' (supported: " + keys + ")");
}

std::map<std::string, std::string> effective_simgrid_config(const std::vector<std::string>& extra_config) {
  std::map<std::string, std::string> config;
  for (const auto* list : {&default_simgrid_config(), &extra_config})
    for (const auto& s : *list)
      if (const auto colon = s.find(':'); colon != std::string::npos) config[s.substr(0, colon)] = s.substr(colon + 1);
  return config;
}

}  // namespace pipesim
