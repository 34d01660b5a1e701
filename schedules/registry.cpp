#include "schedules/registry.hpp"

#include <algorithm>

#include "sim/input_error.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

struct Entry {
  std::vector<std::string> names;  // canonical first
  ScheduleBuilder build;
};

// Constructed on first use: families register from static initializers.
std::vector<Entry>& entries() {
  static std::vector<Entry> table;
  return table;
}

const Entry* find(const std::string& name) {
  for (const Entry& e : entries())
    if (std::find(e.names.begin(), e.names.end(), name) != e.names.end()) return &e;
  return nullptr;
}

}  // namespace

bool register_schedule(std::vector<std::string> names, ScheduleBuilder build) {
  auto& table = entries();
  table.push_back({std::move(names), build});
  // Sorted by canonical name, whatever order the initializers ran in.
  std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) { return a.names[0] < b.names[0]; });
  return true;
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const Entry& e : entries()) names.push_back(e.names.front());
  return names;
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

GeneratedSchedule generate(const Workload& workload, const Platform& platform) {
  const Entry* entry = find(workload.schedule);
  if (!entry)
    throw InputError(workload.file, "schedule",
                     "unknown schedule '" + workload.schedule + "' (expected one of: " + schedule_names_text() + ")");
  if (workload.microbatches < 1) throw InputError(workload.file, "microbatches", "must be at least 1");
  if (workload.iterations < 1) throw InputError(workload.file, "iterations", "must be at least 1");
  check_cost_times(workload, platform);
  return entry->build(workload, platform);
}

}  // namespace pipesim
