#include "sim/engine/simulation.hpp"

#include <cmath>
#include <cstdio>
#include <map>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/engine/cluster_description.hpp"
#include "sim/engine/cluster_zone.hpp"
#include "sim/engine/executor.hpp"
#include "sim/engine/platform_check.hpp"
#include "sim/engine/platform_reader.hpp"
#include "sim/engine/platform_size.hpp"
#include "sim/engine/simgrid_guard.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim/engine/task_checks.hpp"
#include "sim/input_error.hpp"
#include "sim/input_file.hpp"
#include "sim/memory_limit.hpp"

namespace pipesim {

struct Simulation::SimGridState {
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  int argc = 0;
  std::unique_ptr<simgrid::s4u::Engine> engine;
  std::vector<simgrid::s4u::Host*> devices;
  std::vector<std::vector<simgrid::s4u::Host*>> hosts;  // [device][resource]
  bool bounds = true;                                   // the CPU model can bound an execution (not TI)
  std::map<std::string, std::string> config;            // the effective SimGrid settings
};

Simulation::Simulation(const std::string& platform_file, const std::vector<std::string>& extra_config,
                       double max_memory_bytes)
    : simgrid_(std::make_unique<SimGridState>()) {
  // Checked like every input before SimGrid opens it (a FIFO would block it, /dev/zero fill memory).
  const std::string text = read_input_file(platform_file, "a platform file");
  for (const auto& c : extra_config) check_simgrid_setting(c);
  auto& s = *simgrid_;
  s.argv_storage = {"pipesim", "--log=root.thresh:critical", "--log=xbt_cfg.thresh:critical"};
  for (const auto& c : default_simgrid_config()) s.argv_storage.push_back("--cfg=" + c);
  for (const auto& c : extra_config) s.argv_storage.push_back("--cfg=" + c);
  for (auto& a : s.argv_storage) s.argv.push_back(a.data());
  s.argv.push_back(nullptr);
  s.argc = static_cast<int>(s.argv_storage.size());
  s.config = effective_simgrid_config(extra_config);
  s.bounds = s.config["cpu/optim"] != "TI";
  SimGridGuard guard(platform_file);
  bool time_varying = false;
  try {
    s.engine = std::make_unique<simgrid::s4u::Engine>(&s.argc, s.argv.data());
    guard.rearm();  // the engine installed its own SIGSEGV handler
    // After the engine: its log threshold silences the unit parsers' warnings.
    if (is_cluster_description(platform_file)) {
      const ClusterDescription description = parse_cluster_description(platform_file, text);
      const ClusterCounts counts = count_cluster(description);
      PlatformSize size;
      size.hosts = counts.hosts;
      size.links = counts.links;
      check_platform_size(platform_file, size, memory_limit_or_default(max_memory_bytes));
      build_cluster_platform(description);
    } else {
      time_varying = check_platform_file(platform_file, text, s.config, memory_limit_or_default(max_memory_bytes));
      s.engine->load_platform(platform_file);
    }
    s.engine->seal_platform();  // routes exist only once sealed
  } catch (const InputError&) {
    throw;
  } catch (const simgrid::ParseError& e) {
    throw InputError(platform_file, "XML syntax error", single_line(e.what()));
  } catch (const std::exception& e) {
    throw InputError(platform_file, "", single_line(std::string("SimGrid rejected the platform: ") + e.what()));
  }
  s.devices = device_hosts(*s.engine, platform_file);
  s.hosts = resource_hosts(*s.engine, s.devices, platform_file);
  platform_ = read_platform(s.hosts, platform_file);
  platform_.time_varying = time_varying;
  LinkTable links = read_links(*s.engine);
  platform_.links = std::move(links.links);
  paths_ = std::make_shared<SimGridPathSource>(s.devices, platform_file, std::move(links.index));
  platform_.path_source = paths_;
}

Simulation::~Simulation() {
  if (paths_) paths_->detach();
}

Timeline Simulation::run(const TaskGraph& graph) {
  // The executor's completion callback stays connected to SimGrid's global signal.
  if (ran_) throw std::logic_error("Simulation::run: one run per Simulation (and per process)");
  ran_ = true;
  std::vector<std::size_t> resources;
  for (const auto& hosts : simgrid_->hosts) resources.push_back(hosts.size());
  check_task_amounts(graph, resources, simgrid_->bounds);
  SimGridGuard guard(platform_.file);
  return execute(*simgrid_->engine, simgrid_->hosts, graph);
}

AnalyticOutcome Simulation::run_analytic(const TaskGraph& graph) const { return run_analytic(graph, platform_); }

AnalyticOutcome Simulation::run_analytic(const TaskGraph& graph, const Platform& view) const {
  AnalyticSettings settings;
  settings.bounded_cpu = simgrid_->bounds;
  std::string refusal = analytic_refusal(simgrid_->config, platform_, settings);
  if (!refusal.empty()) {
    std::vector<std::size_t> resources;  // bad amounts are an input error whichever engine runs
    for (const auto& hosts : simgrid_->hosts) resources.push_back(hosts.size());
    check_task_amounts(graph, resources, simgrid_->bounds);
    return {std::nullopt, std::move(refusal)};
  }
  return pipesim::run_analytic(graph, view, settings);
}

}  // namespace pipesim
