#include "cli/study_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "sim/format.hpp"
#include "patterns/pattern_analysis.hpp"
#include "studies/forked_run.hpp"
#include "studies/study.hpp"
#include "schedules/ilp/ilp.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "cli/output_files.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/workload_yaml.hpp"
#include "workloads/yaml_fields.hpp"

namespace pipesim {

const char* const kStudyUsage =
    "usage: pipesim study PLATFORM.xml PROFILE|WORKLOAD --memory LIMIT[,LIMIT...] -o DIR [options]\n"
    "Seed 000 section 7's memory-period study: PipeDream's partitions for many memory targets\n"
    "and NOAM values, each simulated as the eager 1F1B schedule, against the ILP's pattern for\n"
    "each memory limit (docs/study.md). PROFILE: a PipeDream graph.txt (imported as by pipesim\n"
    "import); WORKLOAD: a .yaml workload.\n"
    "  --memory LIST         per-device memory limits for the ILP and the table, e.g. 2GiB,4GiB\n"
    "  -o, --output DIR      writes DIR/points.csv, DIR/table.md, DIR/plot.svg (and DIR/workload.yaml)\n"
    "  --ilp-time-limit S    seconds per ILP solve (default 300; 0: the heuristic warm start only)\n"
    "  --ilp-threads N       CBC threads (default 2)\n"
    "  --no-ilp              PipeDream points only\n"
    "  --ilp-log             the solver's progress lines on standard error\n"
    "  --ilp-weights POLICY  the ILP's weight versions: stashing (as PipeDream's runs, default), 2bw (seed 000), "
    "flush\n"
    "  --noam LIST           NOAM values (default 1..number of devices)\n"
    "  --targets N           PipeDream memory targets on a geometric grid, besides the limits (default 48)\n"
    "  --microbatches N      micro-batches per simulated run (default 500)\n"
    "  --title TEXT          plot title (default: workload and device count)\n"
    "  --cfg KEY:VALUE       a SimGrid setting\n"
    "Exit status: 0 written, 2 bad input.\n";

namespace {

class StudyUsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StudyOptions {
  std::string platform, input, output, title;
  std::vector<double> limits;
  std::vector<int> noams;
  std::vector<std::string> simgrid_config;
  double ilp_time_limit = 300;
  int ilp_threads = 2;
  bool ilp = true;
  bool ilp_log = false;
  WeightPolicy ilp_weights = WeightPolicy::Stashing;  // the accounting of the PipeDream runs it is compared with
  int targets = 48;
  int microbatches = 500;
  bool help = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> items;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

int whole(const std::string& option, const std::string& text, int min) {
  long long v = 0;
  if (!YamlFields::parse_integer(text, v) || v < min || v > 100000000)
    throw StudyUsageError(option + " needs a whole number >= " + std::to_string(min) + ", got '" + text + "'");
  return static_cast<int>(v);
}

WeightPolicy weight_policy(const std::string& option, const std::string& text) {
  for (WeightPolicy w : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
    if (text == to_string(w)) return w;
  throw StudyUsageError(option + " needs flush, 2bw or stashing, got '" + text + "'");
}

std::vector<double> byte_list(const std::string& option, const std::string& text) {
  std::vector<double> bytes;
  for (const std::string& item : split_list(text)) {
    try {
      bytes.push_back(parse_bytes(item));
    } catch (const std::invalid_argument& e) {
      throw StudyUsageError(option + ": '" + item + "': " + e.what());
    }
    if (!(bytes.back() > 0)) throw StudyUsageError(option + ": '" + item + "': must be positive");
  }
  return bytes;
}

StudyOptions parse_study_options(const std::vector<std::string>& args) {
  StudyOptions o;
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw StudyUsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h")
      o.help = true;
    else if (a == "-o" || a == "--output")
      o.output = value();
    else if (a == "--memory")
      o.limits = byte_list(a, value());
    else if (a == "--ilp-time-limit") {
      try {
        o.ilp_time_limit = parse_seconds(value());
      } catch (const std::invalid_argument& e) {
        throw StudyUsageError("--ilp-time-limit: " + std::string(e.what()));
      }
    } else if (a == "--ilp-threads")
      o.ilp_threads = whole(a, value(), 1);
    else if (a == "--no-ilp")
      o.ilp = false;
    else if (a == "--ilp-log")
      o.ilp_log = true;
    else if (a == "--ilp-weights")
      o.ilp_weights = weight_policy(a, value());
    else if (a == "--noam") {
      for (const std::string& item : split_list(value())) o.noams.push_back(whole(a, item, 1));
    } else if (a == "--targets")
      o.targets = whole(a, value(), 0);
    else if (a == "--microbatches")
      o.microbatches = whole(a, value(), 8);
    else if (a == "--title")
      o.title = value();
    else if (a == "--cfg")
      o.simgrid_config.push_back(value());
    else if (a.size() > 1 && a[0] == '-')
      throw StudyUsageError("unknown option " + a);
    else
      positional.push_back(a);
  }
  if (o.help) return o;
  if (positional.size() != 2) throw StudyUsageError("study takes a platform file and a profile or workload file");
  if (o.output.empty()) throw StudyUsageError("study needs -o DIR");
  o.platform = positional[0];
  o.input = positional[1];
  std::sort(o.limits.begin(), o.limits.end());
  o.limits.erase(std::unique(o.limits.begin(), o.limits.end()), o.limits.end());
  return o;
}

bool is_yaml(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

// Runs the graph in a child of this process (the platform is loaded, the
// engine has not run) and measures it there.
StudyPoint simulate(Simulation& simulation, const TaskGraph& graph, StudyPoint point) {
  try {
    const RunMeasure m =
        decode(run_forked([&] { return encode(measure_run(graph, simulation.run(graph), simulation.platform())); }));
    if (!m.completed) point.status = "deadlock";
    point.peak_memory = m.peak();
    point.period = m.period;
  } catch (const std::exception& e) {
    point.status = std::string("simulation failed: ") + e.what();
  }
  return point;
}

std::vector<StudyPoint> pipedream_points(Simulation& simulation, const Workload& workload, const StudyOptions& o) {
  const Platform& platform = simulation.platform();
  BaselineOptions options;
  options.memory_targets = o.limits;
  options.grid = o.targets;
  options.noams = o.noams;
  const std::vector<BaselineConfig> configs = pipedream_configurations(workload, platform, options);
  std::cerr << "pipedream: " << configs.size() << " configurations, " << o.microbatches << " micro-batches each\n";
  std::vector<StudyPoint> points;
  for (const BaselineConfig& c : configs) {
    StudyPoint p;
    p.source = "pipedream";
    p.memory_limit = c.memory_target;
    p.predicted_period = c.plan.bottleneck;
    p.predicted_peak = *std::max_element(c.plan.estimate.begin(), c.plan.estimate.end());
    p.config = describe(c);
    points.push_back(simulate(simulation, baseline_graph(c, workload, platform, o.microbatches), p));
  }
  return points;
}

std::vector<StudyPoint> ilp_points(Simulation& simulation, const Workload& workload, const StudyOptions& o) {
  std::vector<StudyPoint> points;
  for (double limit : o.limits) {
    Platform limited = simulation.platform();
    for (Device& d : limited.devices) d.memory = limit;
    IlpOptions options;
    options.time_limit = o.ilp_time_limit;
    options.threads = o.ilp_threads;
    options.weights = o.ilp_weights;
    if (o.ilp_log) options.log = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
    const IlpResult r = solve_optimal_pattern(workload, limited, options);
    StudyPoint p;
    p.source = "ilp";
    p.memory_limit = limit;
    // Time limit 0: CBC is not run, the point is the heuristic warm start.
    p.status = o.ilp_time_limit <= 0 && r.pattern ? "heuristic" : std::string(to_string(r.status));
    std::cerr << "ilp " << fmt::bytes(limit) << ": " << p.status << " in " << fmt::fixed(r.seconds, 1) << " s"
              << (r.pattern ? ", period " + fmt::time(r.period) + ", gap " + fmt::percent(r.gap) : "") << "\n";
    if (!r.pattern) {
      if (r.heuristic_memory_needed > 0) p.config = "heuristic needs " + fmt::bytes(r.heuristic_memory_needed);
      points.push_back(p);
      continue;
    }
    const Pattern& pattern = *r.pattern;
    const PatternTiming timing = pattern_timing(pattern, workload, limited);
    const PatternMemory memory = pattern_memory(pattern, timing, workload, limited.size());
    p.predicted_period = r.period / pattern.copies;
    p.predicted_peak = 0;
    for (const PatternDeviceMemory& d : memory.devices) p.predicted_peak = std::max(p.predicted_peak, d.peak);
    Allocation allocation(workload.layers.size(), 0);
    for (const PatternOp& op : pattern.ops) allocation[op.layer] = op.device;
    p.config = "allocation=" + to_string(allocation) + " gap=" + fmt::percent(r.gap);
    p = simulate(simulation, unroll_pattern(pattern, timing, limited.size(), o.microbatches), p);  // keeps the status
    points.push_back(p);
  }
  return points;
}

}  // namespace

int study_command(const std::vector<std::string>& args) {
  StudyOptions o;
  try {
    o = parse_study_options(args);
  } catch (const StudyUsageError& e) {
    std::cerr << "pipesim: " << e.what() << "\n" << kStudyUsage;
    return 2;
  }
  if (o.help) {
    std::cout << kStudyUsage;
    return 0;
  }
  std::optional<ImportedProfile> imported;
  Workload workload;
  if (is_yaml(o.input)) {
    workload = load_workload(o.input);
  } else {
    imported = import_pipedream(o.input);
    workload = imported->workload;
  }
  Simulation simulation(o.platform, o.simgrid_config);  // loaded once; every run forks
  const Platform& platform = simulation.platform();
  if (o.title.empty()) o.title = workload.name + " on " + std::to_string(platform.size()) + " devices";

  std::vector<StudyPoint> points = pipedream_points(simulation, workload, o);
  if (o.ilp) {
    const std::vector<StudyPoint> ilp = ilp_points(simulation, workload, o);
    points.insert(points.end(), ilp.begin(), ilp.end());
  }

  std::filesystem::create_directories(o.output);
  const std::filesystem::path dir(o.output);
  OutputFiles files;
  std::ostringstream csv, table;
  write_study_csv(csv, points);
  write_study_table(table, points, o.limits);
  files.stage((dir / "points.csv").string(), csv.str());
  files.stage((dir / "table.md").string(), table.str());
  files.stage((dir / "plot.svg").string(), study_svg(points, {o.title, o.limits}));
  if (imported) files.stage((dir / "workload.yaml").string(), imported_workload_yaml(*imported));
  files.commit();

  const std::vector<StudyPoint> front = pareto_front(points, "pipedream");
  std::cout << o.title << ": " << workload.layers.size() << " layers, " << points.size() << " points, " << front.size()
            << " on PipeDream's front; written to " << o.output << "\n"
            << table.str();
  return 0;
}

}  // namespace pipesim
