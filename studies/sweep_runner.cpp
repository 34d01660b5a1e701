#include "studies/sweep_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "studies/subprocess.hpp"

namespace pipesim {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts `pipesim run` for RUN; stdout discarded, stderr and --json to files.
pid_t start(const SweepRun& run, const SweepRunOptions& o, const std::string& err, const std::string& report) {
  std::vector<std::string> args = o.launcher;
  args.insert(args.end(), {o.binary, "run", run.platform, run.workload, "--quiet", "--json", report});
  for (const WorkloadOverride& w : run.overrides) args.push_back("--set=" + w.key + "=" + w.value);
  for (const std::string& c : o.simgrid_config) args.push_back("--cfg=" + c);
  return start_process(args, {"/dev/null", err});
}

}  // namespace

void run_sweep(const SweepPlan& plan, const std::vector<std::size_t>& todo, const SweepRunOptions& o,
               const SweepProgress& progress) {
  std::map<pid_t, SweepRun> running;
  std::size_t next = 0, done = 0;
  const std::string runs = o.dir + "/runs/";
  while (done < todo.size()) {
    while (next < todo.size() && static_cast<int>(running.size()) < std::max(1, o.jobs)) {
      SweepRun run = plan.run(todo[next]);
      const pid_t pid = start(run, o, runs + run.id + ".err", runs + run.id + ".report.json");
      running.emplace(pid, std::move(run));
      ++next;
    }
    const ChildEnd end = wait_child();
    auto it = running.find(end.pid);
    if (it == running.end()) continue;  // not one of ours
    const SweepRun run = std::move(it->second);
    running.erase(it);
    const std::string err = runs + run.id + ".err", report = runs + run.id + ".report.json";
    const std::string report_json = read_text(report);
    const RunRecord record = make_record(run, end.status, read_text(err), report_json);
    write_file_atomically(runs + run.id + ".json", record_json(record));
    if (o.on_report) o.on_report(record, report_json);
    std::remove(err.c_str());
    std::remove(report.c_str());
    ++done;
    if (progress) progress(record, done, todo.size());
  }
}

}  // namespace pipesim
