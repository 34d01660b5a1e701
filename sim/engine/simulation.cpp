#include "sim/engine/simulation.hpp"

#include <fstream>
#include <map>
#include <set>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/engine/executor.hpp"
#include "sim/engine/platform_reader.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

const std::vector<std::string>& default_simgrid_config() {
  static const std::vector<std::string> config = {
      "network/model:CM02",       // no bandwidth/latency correction factors
      "network/crosstraffic:0",   // opposite flows do not slow each other
      "network/TCP-gamma:0",      // no window cap on long-latency routes
      "cpu/optim:TI",             // exact and the fastest CPU update
  };
  return config;
}

namespace {

// SimGrid's messages can span lines (lists of settings or netpoints): keep one.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : text)
    if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
  if (out.size() > 300) out = out.substr(0, 297) + "...";
  return out;
}

// SimGrid aborts the process on an unknown model name: check those first.
void check_setting(const std::string& setting) {
  static const std::map<std::string, std::set<std::string>> models = {
      {"network/model", {"LV08", "CM02", "SMPI", "IB", "Constant"}},
      {"cpu/model", {"Cas01", "ptask_L07"}},
      {"host/model", {"default", "compound", "ptask_L07"}},
      {"disk/model", {"S19"}},
  };
  const auto colon = setting.find(':');
  if (colon == std::string::npos || colon == 0)
    throw InputError("--cfg", setting, "expected a SimGrid setting KEY:VALUE such as network/model:LV08");
  const auto known = models.find(setting.substr(0, colon));
  if (known != models.end() && known->second.count(setting.substr(colon + 1)) == 0) {
    std::string names;
    for (const auto& n : known->second) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--cfg", setting, "unknown model (expected one of: " + names + ")");
  }
}

}  // namespace

struct Simulation::SimGridState {
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  int argc = 0;
  std::unique_ptr<simgrid::s4u::Engine> engine;
  std::vector<simgrid::s4u::Host*> devices;
};

Simulation::Simulation(const std::string& platform_file, const std::vector<std::string>& extra_config)
    : simgrid_(std::make_unique<SimGridState>()) {
  if (!std::ifstream(platform_file)) throw InputError(platform_file, "", "cannot open the platform file");
  for (const auto& c : extra_config) check_setting(c);
  auto& s = *simgrid_;
  s.argv_storage = {"pipesim", "--log=root.thresh:critical", "--log=xbt_cfg.thresh:critical"};
  for (const auto& c : default_simgrid_config()) s.argv_storage.push_back("--cfg=" + c);
  for (const auto& c : extra_config) s.argv_storage.push_back("--cfg=" + c);
  for (auto& a : s.argv_storage) s.argv.push_back(a.data());
  s.argv.push_back(nullptr);
  s.argc = static_cast<int>(s.argv_storage.size());
  try {
    s.engine = std::make_unique<simgrid::s4u::Engine>(&s.argc, s.argv.data());
    s.engine->load_platform(platform_file);
    s.engine->seal_platform();  // routes exist only once sealed
  } catch (const simgrid::ParseError& e) {
    throw InputError(platform_file, "", one_line(std::string("invalid platform: ") + e.what()));
  } catch (const std::exception& e) {
    throw InputError(platform_file, "", one_line(std::string("invalid platform or SimGrid setting: ") + e.what()));
  }
  s.devices = device_hosts(*s.engine, platform_file);
  platform_ = read_platform(s.devices, platform_file);
}

Simulation::~Simulation() = default;

Timeline Simulation::run(const TaskGraph& graph) {
  // The executor's completion callback stays connected to SimGrid's global signal.
  if (ran_) throw std::logic_error("Simulation::run: one run per Simulation (and per process)");
  ran_ = true;
  return execute(*simgrid_->engine, simgrid_->devices, graph);
}

}  // namespace pipesim
