#include "schedules/registry_internal.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "schedules/schedule_params.hpp"
#include "schedules/training_state.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_limit.hpp"
#include "sim/units.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

struct Entry {
  std::vector<std::string> names;  // canonical first
  ScheduleBuilder build;
  ScheduleSizer size;  // may be null
};

// Constructed on first use: families register from static initializers.
std::vector<Entry>& entries() {
  static std::vector<Entry> table;
  return table;
}

// The parameters each schedule takes, by canonical name (register_schedule_params).
std::map<std::string, std::set<std::string>>& declared_params() {
  static std::map<std::string, std::set<std::string>> params;
  return params;
}

// Canonical names of the schedules that run the workload's memory_saving option.
std::vector<std::string>& memory_saving_schedules() {
  static std::vector<std::string> names;
  return names;
}

// Canonical names of the schedules whose automatic pipeline is split by time unless told.
std::set<std::string>& balanced_by_default() {
  static std::set<std::string> names;
  return names;
}

const Entry* find(const std::string& name) {
  for (const Entry& e : entries())
    if (std::find(e.names.begin(), e.names.end(), name) != e.names.end()) return &e;
  return nullptr;
}

}  // namespace

bool register_schedule(std::vector<std::string> names, ScheduleBuilder build, ScheduleSizer size) {
  auto& table = entries();
  table.push_back({std::move(names), build, size});
  // Sorted by canonical name, whatever order the initializers ran in.
  std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) { return a.names[0] < b.names[0]; });
  return true;
}

bool register_memory_saving(const std::string& canonical_name) {
  auto& names = memory_saving_schedules();
  names.insert(std::upper_bound(names.begin(), names.end(), canonical_name), canonical_name);
  return true;
}

bool register_balanced_by_default(const std::string& canonical_name) {
  balanced_by_default().insert(canonical_name);
  return true;
}

std::string auto_partition(const std::string& canonical_name) {
  return balanced_by_default().count(canonical_name) ? "balanced" : "even";
}

bool runs_memory_saving(const std::string& canonical_name) {
  const auto& names = memory_saving_schedules();
  return std::binary_search(names.begin(), names.end(), canonical_name);
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const Entry& e : entries()) names.push_back(e.names.front());
  return names;
}

std::string canonical_schedule_name(const std::string& name) {
  const Entry* e = find(name);
  return e ? e->names.front() : name;
}

std::string schedule_names_text() {
  std::string text;
  for (const Entry& e : entries()) {
    text += (text.empty() ? "" : ", ") + e.names[0];
    for (std::size_t i = 1; i < e.names.size(); ++i) text += (i == 1 ? " (" : ", ") + e.names[i];
    if (e.names.size() > 1) text += ")";
  }
  return text;
}

namespace {

// A task per layer and micro-batch, each way, and a transfer between any two
// layers: the most any family builds per micro-batch.
ScheduleSize per_layer_size(const Workload& w) {
  const double L = static_cast<double>(w.layers.size());
  return {static_cast<double>(w.microbatches) * w.iterations * (4 * L - 2), 4 * L - 2,
          std::to_string(w.layers.size()) + " layers"};
}

void check_memory(const Workload& w, const ScheduleSize& size, const RunLimits& limits) {
  const bool pattern_built = !size.pattern_on_demand || limits.export_pattern;
  const double need = estimated_memory_bytes(size.tasks, pattern_built ? size.pattern_items : 0);
  const double limit = memory_limit_or_default(limits.max_memory_bytes);
  if (size.builder_bytes > limit)
    throw InputError(w.file, size.builder_field,
                     size.builder_what + " needs about " + format_bytes(size.builder_bytes) +
                         " of memory to build; the limit is " + format_bytes(limit) + " (raise it with --max-memory)");
  if (need <= limit) return;
  const std::string iterations = w.iterations > 1 ? " x " + std::to_string(w.iterations) + " iterations" : "";
  throw InputError(w.file, "microbatches",
                   "this run needs about " + format_bytes(need) + " of memory to simulate (" +
                       std::to_string(w.microbatches) + " micro-batches" + iterations + " x " + size.pieces +
                       "); the limit is " + format_bytes(limit) + " (raise it with --max-memory)");
}

}  // namespace

bool register_schedule_params(const std::string& canonical_name, std::set<std::string> params) {
  declared_params()[canonical_name] = std::move(params);
  return true;
}

void check_schedule(const Workload& workload) {
  const Entry* entry = find(workload.schedule);
  if (!entry)
    throw InputError(workload.file, "schedule",
                     "unknown schedule '" + workload.schedule + "' (expected one of: " + schedule_names_text() + ")");
  const auto& declared = declared_params();
  if (const auto it = declared.find(entry->names.front()); it != declared.end()) check_params(workload, it->second);
}

ScheduleSize schedule_size(const Workload& workload, const Platform& platform) {
  check_schedule(workload);
  const Entry* entry = find(workload.schedule);
  return entry->size ? entry->size(workload, platform) : per_layer_size(workload);
}

GeneratedSchedule generate(const Workload& workload, const Platform& platform, const RunLimits& limits) {
  check_schedule(workload);
  const Entry* entry = find(workload.schedule);
  // 0: left out of a workload whose schedule reads it from a file (csv).
  if (workload.microbatches < 1 && !(workload.microbatches == 0 && workload.schedule_params.count("file")))
    throw InputError(workload.file, "microbatches", "must be at least 1");
  if (workload.iterations < 1) throw InputError(workload.file, "iterations", "must be at least 1");
  const auto& saving = memory_saving_schedules();
  if (saves_memory(workload) && std::find(saving.begin(), saving.end(), entry->names.front()) == saving.end()) {
    std::string supported;
    for (const std::string& n : saving) supported += (supported.empty() ? "" : ", ") + n;
    throw InputError(workload.file, "memory_saving",
                     "schedule '" + workload.schedule + "' does not run memory saving (supported: " + supported + ")");
  }
  check_cost_times(workload, platform);
  check_memory(workload, entry->size ? entry->size(workload, platform) : per_layer_size(workload), limits);
  GeneratedSchedule schedule;
  try {
    schedule = entry->build(workload, platform);
  } catch (
      const std::invalid_argument& e) {  // a refusal the family did not place: still the workload's, never fileless
    throw InputError(workload.file, "schedule", e.what());
  }
  add_training_state(schedule.graph, workload, platform, schedule.memory_saving);
  // Host memory stores offloaded bytes and computes nothing, whatever placement the schedule chose.
  for (const Task& task : schedule.graph.tasks())
    if (!is_transfer(task.kind) && task.device >= 0 && task.device < platform.size() &&
        is_host_memory(platform.devices[task.device]))
      throw InputError(
          workload.file, "schedule",
          "schedule '" + workload.schedule + "' puts a " + std::string(to_string(task.kind)) + " on '" +
              platform.devices[task.device].name +
              "', which is host memory (kind host) and runs no stage; place the stages on compute devices");
  return schedule;
}

}  // namespace pipesim
