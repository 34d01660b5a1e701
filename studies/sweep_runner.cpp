#include "studies/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

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
  std::vector<std::string> args = {o.binary, "run", run.platform, run.workload, "--quiet", "--json", report};
  for (const WorkloadOverride& w : run.overrides) args.push_back("--set=" + w.key + "=" + w.value);
  for (const std::string& c : o.simgrid_config) args.push_back("--cfg=" + c);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int null = ::open("/dev/null", O_RDWR);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null < 0 || e < 0) ::_exit(127);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
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
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    const SweepRun run = std::move(it->second);
    running.erase(it);
    const std::string err = runs + run.id + ".err", report = runs + run.id + ".report.json";
    const RunRecord record = make_record(run, status, read_text(err), read_text(report));
    write_file_atomically(runs + run.id + ".json", record_json(record));
    std::remove(err.c_str());
    std::remove(report.c_str());
    ++done;
    if (progress) progress(record, done, todo.size());
  }
}

}  // namespace pipesim

