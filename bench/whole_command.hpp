// The whole command against the bare SimGrid reference: runs both as child
// processes (command_run.hpp) and reports what a user waits for.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/command_run.hpp"

namespace pipesim::bench {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The "makespan" of pipesim's JSON (NaN when absent).
inline double json_makespan(const std::string& json) {
  const auto at = json.find("\"makespan\":");
  return at == std::string::npos ? NAN : std::stod(json.substr(at + 11));
}

// X with 17 significant digits, as the bare programs print it.
inline std::string exact_number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// One alternated measurement: the bare program (its makespan on standard
// output, to OUT; its standard error to ERR), then `pipesim run` (its JSON
// in JSON). Returns an empty string when both ran and agree on the
// makespan to 1e-9, else why not (for SkipWithError).
struct PairRun {
  CommandRun bare, pipesim;
  double makespan = 0;
};
inline std::string run_pair(const std::vector<std::string>& bare_args, const std::vector<std::string>& pipesim_args,
                            const std::string& out, const std::string& err, const std::string& json, PairRun& r) {
  r.bare = run_command(bare_args, out, err);
  r.pipesim = run_command(pipesim_args, "/dev/null");
  if (r.bare.exit_code != 0 || r.pipesim.exit_code != 0)
    return "exit " + std::to_string(r.bare.exit_code) + " (bare), " + std::to_string(r.pipesim.exit_code) +
           " (pipesim)";
  const double bare_makespan = std::stod(slurp(out));
  r.makespan = json_makespan(slurp(json));
  if (!(std::abs(r.makespan - bare_makespan) <= 1e-9 * bare_makespan))
    return "makespans differ: pipesim " + exact_number(r.makespan) + ", bare " + exact_number(bare_makespan);
  return "";
}

// What a pair benchmark reports over its iterations: each side's mean time
// and peak RSS, their ratio, the makespan. The case's time is pipesim's.
struct PairTotals {
  double pipesim_s = 0, bare_s = 0, pipesim_rss = 0, bare_rss = 0, makespan = 0;
  void add(benchmark::State& state, const PairRun& r) {
    state.SetIterationTime(r.pipesim.seconds);
    pipesim_s += r.pipesim.seconds;
    bare_s += r.bare.seconds;
    pipesim_rss = std::max(pipesim_rss, r.pipesim.peak_rss_kib / 1024.0);
    bare_rss = std::max(bare_rss, r.bare.peak_rss_kib / 1024.0);
    makespan = r.makespan;
  }
  void report(benchmark::State& state) const {
    const double n = static_cast<double>(state.iterations());
    state.counters["pipesim_s"] = pipesim_s / n;
    state.counters["bare_s"] = bare_s / n;
    state.counters["ratio"] = bare_s / pipesim_s;  // bare SimGrid time / pipesim time; 1 = as fast
    state.counters["pipesim_rss_MiB"] = pipesim_rss;
    state.counters["bare_rss_MiB"] = bare_rss;
    state.counters["makespan"] = makespan;
  }
};

}  // namespace pipesim::bench
