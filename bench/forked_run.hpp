// Runs a task graph in a forked child, as SimGrid 3.32 allows one engine per
// process: the child loads the platform, runs the graph and sends back the
// wall time of Simulation::run alone, its peak RSS and what the timeline says.
#pragma once

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/task_graph.hpp"
#include "studies/forked_run.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::bench {

using Clock = std::chrono::steady_clock;

// Seed 000's complete-graph platform (a dedicated split-duplex link per
// device pair: 2016 links at P = 64), written once per P for the process.
inline const std::string& platform_file(int P) {
  static std::map<int, std::string> files;
  auto it = files.find(P);
  if (it == files.end())
    it = files
             .emplace(P, pipesim::testing::write_file(
                             "bench-complete-" + std::to_string(P) + ".xml",
                             pipesim::testing::complete_platform_xml(P, "100GBps", "1us", "1Tf", "1TiB")))
             .first;
  return it->second;
}

// Extra SimGrid settings for experiments, e.g.
// PIPESIM_BENCH_CFG="cpu/optim:Lazy network/maxmin-selective-update:no"
// (space-separated "key:value", applied after the project's defaults).
inline std::vector<std::string> extra_simgrid_config() {
  std::vector<std::string> config;
  if (const char* env = std::getenv("PIPESIM_BENCH_CFG")) {
    std::istringstream words(env);
    for (std::string w; words >> w;) config.push_back(w);
  }
  return config;
}

inline long current_rss_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

// What a child sends back: plain bytes through the pipe.
struct ChildReport {
  int ok = 0;                // 1 when the child reached the end
  int completed = 0;         // Timeline::completed()
  double run_seconds = 0;    // wall time of Simulation::run only
  double setup_seconds = 0;  // wall time of the Simulation constructor (platform load)
  double makespan = 0;
  long rss_before_run_kib = 0;  // resident right before run (graph + platform + process)
  long peak_rss_kib = 0;        // getrusage(RUSAGE_SELF).ru_maxrss after run
  double run_cpu_seconds = 0;   // CPU time of Simulation::run only (steadier than wall time on a busy machine)
};

inline double process_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Runs the graph in a forked child (studies/forked_run.hpp); false (and
// `error`) when it failed. analytic: Simulation::run_analytic instead of
// SimGrid (an error when it is not exact).
inline bool run_in_child(const std::string& platform, const pipesim::TaskGraph& graph, ChildReport& report,
                         std::string& error, bool analytic = false) {
  try {
    const std::string bytes = pipesim::run_forked([&] {
      ChildReport r;
      const auto t0 = Clock::now();
      pipesim::Simulation simulation(platform, extra_simgrid_config());
      const auto t1 = Clock::now();
      r.rss_before_run_kib = current_rss_kib();
      const double cpu0 = process_cpu_seconds();
      const auto t2 = Clock::now();
      pipesim::Timeline timeline;
      if (analytic) {
        pipesim::AnalyticOutcome out = simulation.run_analytic(graph);
        if (!out.timeline) throw std::runtime_error("the analytic engine is not exact: " + out.refusal);
        timeline = std::move(*out.timeline);
      } else {
        timeline = simulation.run(graph);
      }
      const auto t3 = Clock::now();
      r.run_cpu_seconds = process_cpu_seconds() - cpu0;
      r.setup_seconds = std::chrono::duration<double>(t1 - t0).count();
      r.run_seconds = std::chrono::duration<double>(t3 - t2).count();
      r.completed = timeline.completed() ? 1 : 0;
      r.makespan = timeline.makespan;
      rusage usage{};
      ::getrusage(RUSAGE_SELF, &usage);
      // ru_maxrss can trail the resident count by a few pages (per-thread RSS
      // counters in the kernel): never report a peak below what was seen.
      r.peak_rss_kib = std::max({static_cast<long>(usage.ru_maxrss), current_rss_kib(), r.rss_before_run_kib});
      r.ok = 1;
      return std::string(reinterpret_cast<const char*>(&r), sizeof r);
    });
    if (bytes.size() != sizeof report) {
      error = "child sent " + std::to_string(bytes.size()) + " bytes";
      return false;
    }
    std::memcpy(&report, bytes.data(), sizeof report);
    return true;
  } catch (const std::exception& e) {
    error = std::string("child failed: ") + e.what();
    return false;
  }
}

}  // namespace pipesim::bench
