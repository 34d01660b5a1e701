#include "studies/sweep_platforms.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/input_error.hpp"
#include "studies/subprocess.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

// The distinct clusters of PLAN, numbered in grid order.
std::map<std::string, int> cluster_numbers(const SweepPlan& plan) {
  std::map<std::string, int> numbers;
  for (std::size_t i = 0; i < plan.size; ++i)
    if (const SweepRun run = plan.run(i); !run.cluster.empty() && !numbers.count(run.cluster)) {
      const int next = static_cast<int>(numbers.size());
      numbers[run.cluster] = next;
    }
  return numbers;
}

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// python3 GENERATOR cluster ARGS -o OUT; "" or why it failed: the last
// line of its stderr, or why it did not start (python3 not found).
std::string run_generator(const std::string& generator, const std::string& args, const std::string& out,
                          const std::string& err) {
  std::vector<std::string> command = {"python3", generator, "cluster"};
  std::istringstream words(args);
  for (std::string w; words >> w;) command.push_back(w);
  command.push_back("-o");
  command.push_back(out);
  pid_t pid = -1;
  try {
    pid = start_process(command, {"/dev/null", err});
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  const int status = wait_child(pid).status;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  const std::string line = last_line(err);
  return line.empty() ? "the generator " + describe_exit(status) : line;
}

// The K-th cluster's file: a cluster description (docs/platform-format.md),
// built with each route on demand, unless ARGS asks for SimGrid's own torus
// or dragonfly, which are XML.
std::string cluster_file(const std::string& args, int number) {
  std::istringstream words(args);
  bool xml = false;
  for (std::string w; words >> w;)
    xml = xml || w == "torus" || w == "dragonfly" || w == "--network=torus" || w == "--network=dragonfly";
  return "cluster-" + std::to_string(number) + (xml ? ".xml" : ".yaml");
}

}  // namespace

std::string generate_clusters(const SweepPlan& plan, const std::string& spec) {
  const std::map<std::string, int> numbers = cluster_numbers(plan);
  if (numbers.empty()) return "";
  std::string pattern = (fs::temp_directory_path() / "pipesim-clusters-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder for the clusters");
  for (const auto& [args, number] : numbers) {
    const std::string out = pattern + "/" + cluster_file(args, number);
    const std::string failure = run_generator(plan.generator, args, out, pattern + "/generator.err");
    if (!failure.empty()) {
      fs::remove_all(pattern);
      throw InputError(spec, "platform", "'cluster " + args + "': " + failure);
    }
  }
  fs::remove(pattern + "/generator.err");
  return pattern;
}

void install_clusters(SweepPlan& plan, const std::string& temporary, const std::string& dir) {
  if (temporary.empty()) return;
  const std::map<std::string, int> numbers = cluster_numbers(plan);
  fs::create_directories(dir + "/platforms");
  for (const auto& [args, number] : numbers) {
    const std::string name = "/" + cluster_file(args, number);
    fs::copy_file(temporary + name, dir + "/platforms" + name, fs::copy_options::overwrite_existing);
  }
  fs::remove_all(temporary);
  plan.run = [made = plan.run, numbers, dir](std::size_t index) {
    SweepRun run = made(index);
    if (!run.cluster.empty()) run.platform = dir + "/platforms/" + cluster_file(run.cluster, numbers.at(run.cluster));
    return run;
  };
}

}  // namespace pipesim
