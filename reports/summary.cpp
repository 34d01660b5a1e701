#include "reports/summary.hpp"
#include "analysis/training_figures.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/pattern_summary.hpp"
#include "reports/text_table.hpp"
#include "sim/format.hpp"
#include "sim/memory_saving_summary.hpp"
#include "sim/split_plan.hpp"

namespace pipesim {
namespace {

// One truth: why a device's simulated peak is not the pattern's analytic
// (steady-state) peak, "" when every device's is.
std::string analytic_peak_note(const PatternSummary& pattern, const Metrics& m) {
  std::string above, below;
  double most = 0;
  for (std::size_t d = 0; d < m.devices.size() && d < pattern.analytic_peak.size(); ++d) {
    const double simulated = m.devices[d].peak.total, analytic = pattern.analytic_peak[d];
    if (std::abs(simulated - analytic) <= 1e-9 * std::max(1.0, analytic)) continue;
    std::string& list = simulated > analytic ? above : below;
    list += (list.empty() ? "" : ", ") + m.devices[d].name;
    most = std::max(most, simulated - analytic);
  }
  std::string note;
  if (!above.empty())
    note = above + " peak above it outside the steady state (warm-up or drain), by up to " + fmt::bytes(most);
  if (!below.empty())
    note += (note.empty() ? "" : "; ") + below + " never reach it (too few micro-batches for the steady state)";
  return note.empty() ? "" : "the analytic peak is the steady state's; " + note;
}

std::string device_name(const Platform& platform, int d) {
  return d >= 0 && d < platform.size() ? platform.devices[d].name : "device " + std::to_string(d);
}

// x / base - 1, with round-off below 0.05 % shown as 0 (never "-0.0 %").
double ratio_change(double x, double base) {
  const double r = base > 0 ? x / base - 1 : 0;
  return std::abs(r) < 5e-4 ? 0.0 : r;
}

std::string largest_category(const MemoryBreakdown& b) {
  int best = -1;
  for (int c = 0; c < kMemoryCategoryCount; ++c)
    if (b[c] > 0 && (best < 0 || b[c] > b[best])) best = c;
  if (best < 0) return "-";
  return std::string(to_string(static_cast<MemoryCategory>(best))) + " (" + fmt::bytes(b[best]) + ")";
}

std::string verdict(const Metrics& m, const Platform& platform) {
  if (m.valid) return "VALID";
  std::vector<std::string> reasons;
  if (!m.completed) {
    // The engine's explanation already starts with "deadlock: N of M tasks never ran".
    reasons.push_back(!m.deadlock.empty() ? m.deadlock
                                          : "deadlock, " + std::to_string(m.blocked_tasks) + " tasks never ran");
  }
  for (const MemoryViolation& v : m.violations)
    reasons.push_back("out of memory on " + device_name(platform, v.device) + " at " + fmt::time(v.time) + " (" +
                      fmt::bytes(v.used) + " > " + fmt::bytes(v.capacity) + ", pushed over by " +
                      std::string(to_string(v.pushed_over)) + ")");
  std::string s = "INVALID";
  for (std::size_t i = 0; i < reasons.size(); ++i) s += (i ? "; " : ": ") + reasons[i];
  return s;
}

}  // namespace

namespace {

// A worker's devices, "a+b+c" for a group.
std::string worker_name(const Platform& platform, const std::vector<int>& devices) {
  std::string name;
  for (const int d : devices) name += (name.empty() ? "" : "+") + device_name(platform, d);
  return name;
}

// Why the steady state is not eq. 1's period, when it is not (one truth):
// eq. 1 is exact when compute binds; when a stage's sends bind, the
// transfers in flight share their links and leave them idle now and then
// (docs/mobile.md, "When the simulation matches eq. 1").
std::string split_gap_note(const SplitPlan& plan, const Metrics& m) {
  if (!(plan.period > 0) || !(m.time_per_microbatch > 0)) return "";
  const double gap = m.time_per_microbatch / plan.period - 1;
  if (std::abs(gap) <= 1e-6) return "";
  bool sends_bind = false;
  for (const SplitStagePlan& st : plan.stages) sends_bind = sends_bind || st.communication_seconds >= plan.period;
  return "; the steady state is " + fmt::fixed(100 * std::abs(gap), 1) + " % " + (gap > 0 ? "above" : "below") +
         (sends_bind ? ": the sends bind, and the transfers in flight share their links"
                     : ": the run has not settled in its micro-batches");
}

void write_split_stages(std::ostream& os, const SplitPlan& plan, const Platform& platform) {
  std::vector<Row> rows = {{"stage", "device", "layers", "forward", "backward", "communication", "sends", "in flight"}};
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const SplitStagePlan& st = plan.stages[s];
    rows.push_back(
        {std::to_string(s), worker_name(platform, st.devices.empty() ? std::vector<int>{st.device} : st.devices),
         std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer), fmt::time(st.forward_seconds),
         fmt::time(st.backward_seconds), fmt::time(st.communication_seconds), st.sends, std::to_string(st.in_flight)});
  }
  os << "\nsplit stages (eq. 1: forward f, backward g, communication h per micro-batch)\n";
  write_table(os, rows);
}

// Every worker's devices (a worker the partition leaves without a stage idles).
void write_groups(std::ostream& os, const SplitPlan& plan, const Platform& platform) {
  std::vector<Row> rows = {{"worker", "stage", "devices"}};
  for (std::size_t k = 0; k < plan.groups.size(); ++k)
    rows.push_back(
        {std::to_string(k), k < plan.stages.size() ? std::to_string(k) : "-", worker_name(platform, plan.groups[k])});
  os << "\ngroups (" << plan.grouping << ")\n";
  write_table(os, rows);
}

// beta: share of the resource given to the forward pass ("-" if no stage runs there).
void write_resources(std::ostream& os, const Metrics& m, const SplitPlan* split) {
  std::vector<Row> rows = {{"device", "resource", "beta", "busy", "utilization"}};
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    const DeviceMetrics& dm = m.devices[d];
    const std::vector<double>* beta = nullptr;  // this device's, in the stage of its worker
    if (split != nullptr)
      for (const SplitStagePlan& st : split->stages)
        for (std::size_t i = 0; i < st.devices.size() && i < st.beta.size(); ++i)
          if (st.devices[i] == static_cast<int>(d)) beta = &st.beta[i];
    for (std::size_t r = 0; r < dm.resources.size(); ++r)
      rows.push_back({r == 0 ? dm.name : "", dm.resources[r].type,
                      beta != nullptr && r < beta->size() ? fmt::fixed((*beta)[r], 4) : "-",
                      fmt::time(dm.resources[r].busy_time), fmt::percent(dm.resources[r].utilization)});
  }
  if (rows.size() == 1) return;
  os << "\nresources (busy: the work of their tasks at full speed)\n";
  write_table(os, rows);
}

// The GPU waiting for the host's kernel launches, where it is the most.
std::string host_bound_text(const TrainingFigures& t, const Platform& platform) {
  if (t.host_bound_device < 0) return "none (at every pass the device takes longer than the host takes to launch it)";
  return fmt::time(t.host_bound_seconds) + " per iteration on " + platform.devices[t.host_bound_device].name + " (" +
         fmt::fixed(100 * t.host_bound_share, 1) + " % of its busy time: kernels waiting for their launch)";
}

}  // namespace

void write_summary(std::ostream& os, const Metrics& m, const Platform& platform, const std::string& schedule_name,
                   const PatternSummary* pattern, const SplitPlan* split,
                   const std::vector<StageMemorySaving>* memory_saving, const std::string* engine,
                   const TrainingFigures* training) {
  int used = 0;
  for (const DeviceMetrics& d : m.devices) used += d.tasks > 0;
  std::vector<Row> header = {
      {"schedule", schedule_name},
      {"devices", std::to_string(m.devices.size()) + " (" + std::to_string(used) + " used)"},
      {"micro-batches", std::to_string(m.microbatches)},
      {"iterations", std::to_string(m.iterations)},
      {"makespan", fmt::time(m.makespan)},
      {"iteration time", fmt::time(m.iteration_time)},
      {"time per micro-batch", fmt::time(m.iteration_time_per_microbatch)},
      {"steady state", fmt::time(m.time_per_microbatch) + " per micro-batch"},
      {"throughput", fmt::fixed(m.throughput, 2) + " samples/s"},
      {"verdict", verdict(m, platform)},
  };
  if (m.iterations >= 2) {
    const auto time = std::find_if(header.begin(), header.end(), [](const Row& r) { return r[0] == "iteration time"; });
    header.insert(time + 1, {"steady iteration",
                             fmt::time(m.steady_iteration_time) + " (the last one's end after the previous one's)"});
  }
  if (engine != nullptr) header.insert(header.begin() + 1, {"engine", *engine});
  if (training != nullptr) {
    // After "throughput": the job in tokens and flops.
    auto at = header.end() - 1;
    at = header.insert(at, {"tokens/s", fmt::fixed(training->tokens_per_second, 0)}) + 1;
    at = header.insert(at, {"model TFLOP/s per GPU", fmt::fixed(training->model_flops_per_gpu / 1e12, 1) + " (" +
                                                         std::to_string(training->gpus) + " GPUs)"}) +
         1;
    std::string mfu = fmt::fixed(100 * training->mfu, 1) + " % of " +
                      fmt::fixed(training->peak_flops_per_gpu / 1e12, 0) + " TFLOP/s (" + training->peak_source + ")";
    at = header.insert(at, {"MFU", mfu}) + 1;
    if (training->hfu != training->mfu)
      at = header.insert(at, {"HFU", fmt::fixed(100 * training->hfu, 1) + " % (with recompute)"}) + 1;
    header.insert(at, {"host-bound", host_bound_text(*training, platform)});
  }
  if (pattern != nullptr) {
    // What the pattern promises, beside what the simulation measured.
    const std::string per =
        " per " + std::to_string(pattern->copies) + " micro-batch" + (pattern->copies > 1 ? "es" : "");
    std::string cycle;
    for (std::size_t i = 0; i < pattern->critical_cycle.size() && i < 12; ++i)
      cycle += (i ? " -> " : "") + pattern->critical_cycle[i];
    if (pattern->critical_cycle.size() > 12) cycle += " -> ...";
    header.insert(header.end() - 1, {{"pattern period", fmt::time(pattern->period) + per},
                                     {"exact period", fmt::time(pattern->exact_period) + per + " (event graph)"},
                                     {"simulated period", fmt::time(pattern->simulated_period) + per},
                                     {"critical cycle", cycle}});
    if (!pattern->analytic_memory_note.empty())
      header.insert(header.end() - 1, {"analytic memory", pattern->analytic_memory_note});
    else if (const std::string why = analytic_peak_note(*pattern, m); !why.empty())
      header.insert(header.end() - 1, {"analytic memory", why});
  }
  if (split != nullptr)
    header.insert(header.end() - 1,
                  {"eq. 1 period", fmt::time(split->period) + " per micro-batch (" + split->partition + " partition, " +
                                       split->allocation + " allocation)" + split_gap_note(*split, m)});
  if (split != nullptr && split->grouping != "none")
    header.insert(header.end() - 1,
                  {"grouping", split->grouping + ": " + std::to_string(split->groups.size()) + " workers of " +
                                   std::to_string(platform.devices.size()) + " devices, slowest " +
                                   fmt::time(split->grouping_period) + " for the whole chain"});
  // Header values are text, so left-align both columns.
  std::size_t w = 0;
  for (const Row& r : header) w = std::max(w, r[0].size());
  for (const Row& r : header) os << r[0] << std::string(w - r[0].size() + 2, ' ') << r[1] << '\n';

  os << "\ndevices\n";
  std::vector<Row> rows = {{"name", "tasks", "busy", "idle", "bubble", "peak memory", "capacity", "largest category"}};
  const bool analytic = pattern != nullptr && pattern->analytic_memory_note.empty();
  if (analytic) rows[0].push_back("analytic peak");
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    const DeviceMetrics& dm = m.devices[d];
    const double capacity = d < platform.devices.size() ? platform.devices[d].memory : 0;
    rows.push_back({dm.name, std::to_string(dm.tasks), fmt::time(dm.busy_time), fmt::time(dm.idle_time),
                    fmt::percent(dm.bubble_fraction), fmt::bytes(dm.peak.total),
                    capacity > 0 ? fmt::bytes(capacity) : "unlimited", largest_category(dm.peak.breakdown)});
    if (analytic)
      rows.back().push_back(d < pattern->analytic_peak.size() ? fmt::bytes(pattern->analytic_peak[d]) : "-");
  }
  write_table(os, rows, true);
  if (split != nullptr) write_split_stages(os, *split, platform);
  if (split != nullptr && split->grouping != "none") write_groups(os, *split, platform);
  write_resources(os, m, split);

  if (memory_saving != nullptr && !memory_saving->empty()) {
    // Seed 002 per stage: what one micro-batch costs in time against what it saves in memory.
    os << "\nmemory saving (one micro-batch per stage, against keeping every activation)\n";
    rows = {{"stage", "device", "policy", "in flight", "limit", "time", "overhead", "peak", "saved", "recomputed",
             "offloaded"}};
    for (const StageMemorySaving& s : *memory_saving)
      rows.push_back({std::to_string(s.stage), device_name(platform, s.device), s.policy, std::to_string(s.in_flight),
                      fmt::bytes(s.limit), fmt::time(s.seconds),
                      fmt::percent(ratio_change(s.seconds, s.baseline_seconds)), fmt::bytes(s.bytes),
                      fmt::percent(-ratio_change(s.bytes, s.baseline_bytes)), std::to_string(s.recomputed),
                      std::to_string(s.offloaded)});
    write_table(os, rows, true);
  }

  if (!m.collectives.empty()) {
    // Summed over calls; exposed: the part no compute of the group's ranks hid.
    os << "\ncollectives\n";
    rows = {{"purpose", "operation", "algorithm", "ranks", "calls", "bytes", "time", "exposed"}};
    for (const CollectiveMetrics& c : m.collectives)
      rows.push_back({c.purpose, c.operation, c.algorithm, std::to_string(c.group_size), std::to_string(c.calls),
                      fmt::bytes(c.bytes), fmt::time(c.time), fmt::time(c.exposed_time)});
    write_table(os, rows, true);
  }

  rows = {{"name", "bytes", "busy", "utilization"}};
  for (const LinkMetrics& lm : m.links)
    if (lm.bytes > 0)
      rows.push_back({lm.name, fmt::bytes(lm.bytes), fmt::time(lm.busy_time), fmt::percent(lm.utilization)});
  os << "\nlinks\n";
  if (rows.size() == 1)
    os << "  (no link carried data)\n";
  else
    write_table(os, rows);
}

}  // namespace pipesim
