#include "studies/sweep_results.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "reports/csv_field.hpp"
#include "reports/json_writer.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

const char* const kTopMetrics[] = {"schedule",
                                   "valid",
                                   "completed",
                                   "blocked_tasks",
                                   "deadlock",
                                   "makespan",
                                   "iteration_time",
                                   "steady_iteration_time",
                                   "iteration_time_per_microbatch",
                                   "time_per_microbatch",
                                   "throughput",
                                   "microbatches",
                                   "iterations"};
const char* const kPatternMetrics[] = {"period", "exact_period", "exact_time_per_microbatch", "simulated_period"};
const char* const kTrainingMetrics[] = {"tokens_per_second", "mfu"};

// The category that holds most of a device's peak (the report's order breaks ties).
std::string largest_part(const YAML::Node& breakdown) {
  std::string name;
  double most = -1;
  if (breakdown.IsMap())
    for (const auto& part : breakdown)
      if (part.second.IsScalar() && part.second.as<double>() > most)
        most = part.second.as<double>(), name = part.first.Scalar();
  return name;
}

// The collectives' exposed time, summed over calls (each averaged over its ranks): seconds.
std::string exposed_communication(const YAML::Node& collectives) {
  if (!collectives.IsSequence()) return "";
  double sum = 0;
  for (const YAML::Node& c : collectives)
    if (c["exposed_time"].IsScalar()) sum += c["exposed_time"].as<double>();
  return json_number(sum);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_escape(items[i]);
  return out + "]";
}

std::vector<std::string> string_list(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n.IsSequence())
    for (const YAML::Node& item : n) out.push_back(item.IsScalar() ? item.Scalar() : "");
  return out;
}

// The metrics of a --json report; columns it lacks stay empty.
std::vector<std::string> report_metrics(YAML::Node report) {  // not const: a missing key reads as undefined
  std::vector<std::string> out(sweep_metric_columns().size());
  if (!report.IsMap()) return out;
  std::size_t c = 0;
  for (const char* key : kTopMetrics) {
    const YAML::Node v = report[key];
    out[c++] = v.IsScalar() ? v.Scalar() : "";
  }
  // The worst device among those given work.
  const YAML::Node devices = report["devices"];
  std::size_t count = 0, used = 0;
  std::string bubble, peak, capacity, largest;
  double worst_bubble = -1, worst_peak = -1;
  if (devices.IsSequence())
    for (const YAML::Node& d : devices) {
      ++count;
      if (!d["tasks"].IsScalar() || d["tasks"].as<double>() <= 0) continue;
      ++used;
      if (d["bubble_fraction"].IsScalar() && d["bubble_fraction"].as<double>() > worst_bubble)
        worst_bubble = d["bubble_fraction"].as<double>(), bubble = d["bubble_fraction"].Scalar();
      if (d["peak_memory"].IsScalar() && d["peak_memory"].as<double>() > worst_peak) {
        worst_peak = d["peak_memory"].as<double>(), peak = d["peak_memory"].Scalar();
        capacity = d["memory_capacity"].IsScalar() ? d["memory_capacity"].Scalar() : "";
        largest = largest_part(d["peak_breakdown"]);
      }
    }
  out[c++] = devices.IsSequence() ? std::to_string(count) : "";
  out[c++] = devices.IsSequence() ? std::to_string(used) : "";
  out[c++] = bubble;
  out[c++] = peak;
  out[c++] = capacity;
  const YAML::Node pattern = report["pattern"];
  for (const char* key : kPatternMetrics) {
    const YAML::Node v = pattern.IsMap() ? pattern[key] : YAML::Node();
    out[c++] = v.IsScalar() ? v.Scalar() : "";
  }
  out[c++] = largest;
  const YAML::Node training = report["training"];
  for (const char* key : kTrainingMetrics) {
    const YAML::Node v = training.IsMap() ? training[key] : YAML::Node();
    out[c++] = v.IsScalar() ? v.Scalar() : "";
  }
  out[c++] = exposed_communication(report["collectives"]);
  return out;
}

YAML::Node load_report(const std::string& json) {
  try {
    return YAML::Load(json);
  } catch (const YAML::Exception&) {
    return YAML::Node();
  }
}

}  // namespace

const std::vector<std::string>& sweep_metric_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c(std::begin(kTopMetrics), std::end(kTopMetrics));
    for (const char* k : {"devices", "devices_used", "worst_bubble_fraction", "max_peak_memory", "memory_capacity"})
      c.push_back(k);
    for (const char* k : kPatternMetrics) c.push_back(std::string("pattern.") + k);
    c.push_back("max_peak_largest_part");
    for (const char* k : kTrainingMetrics) c.push_back(std::string("training.") + k);
    c.push_back("exposed_communication");
    return c;
  }();
  return columns;
}

RunRecord make_record(const SweepRun& run, int wait_status, const std::string& stderr_text,
                      const std::string& report_json) {
  RunRecord r;
  r.id = run.id;
  r.inputs = run.values;
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    r.exit_code = std::to_string(code);
    r.status = code == 0 ? "valid" : code == 1 ? "invalid" : "error";
  } else {
    r.status = "killed by signal " + std::to_string(WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0);
  }
  // The last non-empty line: the error contract makes it the only one.
  std::string line;
  std::istringstream lines(stderr_text);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) line = l;
  r.error = line;
  r.metrics = report_json.empty() ? std::vector<std::string>(sweep_metric_columns().size())
                                  : report_metrics(load_report(report_json));
  if (!record_complete(r)) {
    if (r.status.rfind("killed by signal", 0) == 0) return r;
    r.status = "error";
    r.error = "pipesim: error: " + run.id + ".report.json: --json: the run exited " + r.exit_code +
              " but its report is missing or unreadable";
  }
  return r;
}

std::optional<RunRecord> record_with_divided_part(const SweepRun& run, const std::string& report_json,
                                                  const std::string& category, double divisor) {
  YAML::Node report = load_report(report_json);
  if (!report.IsMap() || !report["devices"].IsSequence()) return std::nullopt;
  try {
    for (YAML::Node d : report["devices"]) {
      YAML::Node part = d["peak_breakdown"][category];
      if (!part.IsScalar() || !d["peak_memory"].IsScalar()) continue;
      const double whole = part.as<double>(), kept = whole / divisor;
      d["peak_memory"] = json_number(d["peak_memory"].as<double>() - (whole - kept));
      part = json_number(kept);
    }
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  RunRecord r;
  r.id = run.id;
  r.inputs = run.values;
  r.status = "valid";
  r.exit_code = "0";
  r.metrics = report_metrics(report);
  if (!record_complete(r)) return std::nullopt;
  return r;
}

bool record_complete(const RunRecord& r) {
  if (r.status.rfind("killed by signal", 0) == 0) return false;
  const auto& columns = sweep_metric_columns();
  const std::size_t valid =
      static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "valid") - columns.begin());
  // Every report has "valid"; a record with fewer columns comes from an older pipesim.
  const bool has_metrics = r.metrics.size() == columns.size() && !r.metrics[valid].empty();
  return has_metrics || (r.status != "valid" && r.status != "invalid");
}

std::string record_json(const RunRecord& r) {
  std::string out = "{\n  \"id\": " + json_escape(r.id) + ",\n  \"inputs\": " + json_list(r.inputs) +
                    ",\n  \"status\": " + json_escape(r.status) + ",\n  \"exit_code\": " + json_escape(r.exit_code) +
                    ",\n  \"error\": " + json_escape(r.error) + ",\n  \"metrics\": {";
  const auto& columns = sweep_metric_columns();
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += std::string(i ? "," : "") + "\n    " + json_escape(columns[i]) + ": " + json_escape(r.metrics[i]);
  return out + "\n  }\n}\n";
}

std::optional<RunRecord> read_record(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    const YAML::Node n = YAML::Load(read_text(path));
    if (!n.IsMap() || !n["id"].IsScalar() || !n["status"].IsScalar() || !n["metrics"].IsMap()) return std::nullopt;
    RunRecord r;
    r.id = n["id"].Scalar();
    r.inputs = string_list(n["inputs"]);
    r.status = n["status"].Scalar();
    r.exit_code = n["exit_code"].IsScalar() ? n["exit_code"].Scalar() : "";
    r.error = n["error"].IsScalar() ? n["error"].Scalar() : "";
    for (const std::string& c : sweep_metric_columns()) {
      const YAML::Node v = n["metrics"][c];
      if (!v.IsScalar()) return std::nullopt;  // another version's record: run again
      r.metrics.push_back(v.Scalar());
    }
    return r;
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

std::optional<RunRecord> find_record(const std::string& dir, const SweepRun& run) {
  std::optional<RunRecord> r = read_record(dir + "/runs/" + run.id + ".json");
  if (r && (r->id != run.id || r->inputs != run.values)) return std::nullopt;
  return r;
}

std::string plan_json(const SweepPlan& plan) {
  std::string out =
      "{\n  \"name\": " + json_escape(plan.name) + ",\n  \"columns\": " + json_list(plan.columns) + ",\n  \"runs\": [";
  for (std::size_t i = 0; i < plan.size; ++i) {
    const SweepRun run = plan.run(i);
    out += std::string(i ? "," : "") + "\n    {\"id\": " + json_escape(run.id) +
           ", \"inputs\": " + json_list(run.values) + "}";
  }
  return out + "\n  ]\n}\n";
}

SweepPlan read_plan(const std::string& dir) {
  const std::string path = dir + "/plan.json";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(dir, "", "not a sweep output folder (no plan.json)");
  SweepPlan plan;
  auto runs = std::make_shared<std::vector<SweepRun>>();
  try {
    const YAML::Node n = YAML::Load(read_text(path));
    if (!n.IsMap() || !n["runs"].IsSequence()) throw InputError(path, "", "not a sweep plan");
    plan.name = n["name"].IsScalar() ? n["name"].Scalar() : "";
    plan.columns = string_list(n["columns"]);
    for (const YAML::Node& r : n["runs"]) {
      SweepRun run;
      run.id = r["id"].IsScalar() ? r["id"].Scalar() : "";
      run.values = string_list(r["inputs"]);
      if (run.id.empty() || run.values.size() != plan.columns.size())
        throw InputError(path, "runs", "not a sweep plan");
      runs->push_back(std::move(run));
    }
  } catch (const YAML::Exception& e) {
    throw InputError(path, "", std::string("not a sweep plan: ") + e.what());
  }
  plan.size = runs->size();
  plan.run = [runs](std::size_t index) { return (*runs)[index]; };
  return plan;
}

std::string results_csv(const SweepPlan& plan, const std::vector<RunRecord>& records) {
  std::string out = "id";
  // Swept overrides as set.KEY: no clash with the metrics (schedule, microbatches).
  for (const std::string& c : plan.columns) out += "," + csv_field(c == "platform" || c == "workload" ? c : "set." + c);
  out += ",status,exit_code,error";
  for (const std::string& c : sweep_metric_columns()) out += "," + c;
  out += "\n";
  for (const RunRecord& r : records) {
    out += csv_field(r.id);
    for (const std::string& v : r.inputs) out += "," + csv_field(v);
    out += "," + csv_field(r.status) + "," + r.exit_code + "," + csv_field(r.error);
    for (const std::string& m : r.metrics) out += "," + csv_field(m);
    out += "\n";
  }
  return out;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();  // a write error (a full disk) may show only when the file is closed
    if (!out) {
      std::remove(temporary.c_str());
      throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw std::runtime_error(path + ": cannot write: " + std::strerror(error));
  }
}

}  // namespace pipesim
