#include "reports/json_report.hpp"
#include "analysis/training_figures.hpp"

#include <set>

#include "analysis/pattern_summary.hpp"
#include "reports/json_writer.hpp"
#include "sim/memory_saving_summary.hpp"
#include "sim/split_plan.hpp"

namespace pipesim {
namespace {

void write_breakdown(JsonWriter& w, const MemoryBreakdown& b) {
  w.begin_object();
  for (int c = 0; c < kMemoryCategoryCount; ++c) w.field(to_string(static_cast<MemoryCategory>(c)), b[c]);
  w.end_object();
}

std::string device_name(const Platform& platform, int d) {
  return d >= 0 && d < platform.size() ? platform.devices[d].name : std::to_string(d);
}

void write_pattern(JsonWriter& w, const PatternSummary& p, const Platform& platform) {
  w.begin_object();
  w.field("copies", p.copies);
  w.field("period", p.period);
  w.field("exact_period", p.exact_period);
  w.field("exact_time_per_microbatch", p.exact_period / p.copies);
  w.field("simulated_period", p.simulated_period);
  w.key("critical_cycle");
  w.begin_array();
  for (const std::string& node : p.critical_cycle) w.value(node);
  w.end_array();
  if (!p.analytic_memory_note.empty()) w.field("analytic_memory_note", p.analytic_memory_note);
  w.key("analytic_peak_memory");
  w.begin_array();
  for (std::size_t d = 0; d < p.analytic_peak.size(); ++d) {
    w.begin_object();
    w.field("device", device_name(platform, static_cast<int>(d)));
    w.field("bytes", p.analytic_peak[d]);
    w.end_object();
  }
  w.end_array();
  w.key("stash_counts");
  w.begin_array();
  for (int c : p.stash_counts) w.value(c);
  w.end_array();
  w.end_object();
}

}  // namespace

namespace {

void write_split(JsonWriter& w, const SplitPlan& plan, const Platform& platform) {
  w.begin_object();
  w.field("partition", plan.partition);
  w.field("allocation", plan.allocation);
  w.field("period", plan.period);
  w.key("grouping");
  w.begin_object();
  w.field("method", plan.grouping);
  w.field("period", plan.grouping_period);
  w.key("groups");
  w.begin_array();
  for (const std::vector<int>& group : plan.groups) {
    w.begin_array();
    for (const int d : group) w.value(device_name(platform, d));
    w.end_array();
  }
  w.end_array();
  w.end_object();
  w.key("stages");
  w.begin_array();
  for (const SplitStagePlan& s : plan.stages) {
    w.begin_object();
    w.field("device", device_name(platform, s.device));
    w.key("devices");
    w.begin_array();
    for (const int d : s.devices) w.value(device_name(platform, d));
    w.end_array();
    w.field("first_layer", s.first_layer);
    w.field("last_layer", s.last_layer);
    w.field("forward_seconds", s.forward_seconds);
    w.field("backward_seconds", s.backward_seconds);
    w.field("communication_seconds", s.communication_seconds);
    w.field("sends", s.sends);
    w.field("period", s.period());
    w.field("in_flight", s.in_flight);
    // By resource type: a group has one beta per type.
    w.key("beta");
    w.begin_object();
    std::set<std::string> written;
    for (std::size_t i = 0; i < s.devices.size() && i < s.beta.size(); ++i) {
      const Device& d = platform.devices.at(s.devices[i]);
      for (std::size_t j = 0; j < s.beta[i].size(); ++j) {
        const std::string type = j < d.resources.size() ? d.resources[j].type : d.kind;
        if (written.insert(type).second) w.field(type, s.beta[i][j]);
      }
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

void write_json_report(std::ostream& os, const Metrics& m, const Platform& platform, const std::string& schedule_name,
                       const PatternSummary* pattern, const SplitPlan* split,
                       const std::vector<StageMemorySaving>* memory_saving, const std::string* engine,
                       const TrainingFigures* training) {
  JsonWriter w(os, true);
  w.begin_object();
  w.field("version", PIPESIM_VERSION);
  w.field("schedule", schedule_name);
  w.field("platform", platform.file);
  if (engine != nullptr) w.field("engine", *engine);
  w.field("valid", m.valid);
  w.field("completed", m.completed);
  w.field("blocked_tasks", m.blocked_tasks);
  w.field("deadlock", m.deadlock);
  w.field("makespan", m.makespan);
  w.field("iteration_time", m.iteration_time);
  w.field("steady_iteration_time", m.steady_iteration_time);
  w.field("iteration_time_per_microbatch", m.iteration_time_per_microbatch);
  w.field("time_per_microbatch", m.time_per_microbatch);
  w.field("throughput", m.throughput);
  w.field("microbatches", m.microbatches);
  w.field("iterations", m.iterations);
  if (training != nullptr) {
    w.key("training");
    w.begin_object();
    w.field("tokens_per_second", training->tokens_per_second);
    w.field("model_flops_per_iteration", training->model_flops_per_iteration);
    w.field("hardware_flops_per_iteration", training->hardware_flops_per_iteration);
    w.field("gpus", training->gpus);
    w.field("model_flops_per_gpu", training->model_flops_per_gpu);
    w.field("peak_flops_per_gpu", training->peak_flops_per_gpu);
    w.field("peak_source", training->peak_source);
    w.field("mfu", training->mfu);
    w.field("hfu", training->hfu);
    w.field("host_bound_seconds", training->host_bound_seconds);
    w.field("host_bound_share", training->host_bound_share);
    if (training->host_bound_device >= 0)
      w.field("host_bound_device", platform.devices[training->host_bound_device].name);
    w.end_object();
  }

  w.key("devices");
  w.begin_array();
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    const DeviceMetrics& dm = m.devices[d];
    w.begin_object();
    w.field("name", dm.name);
    w.field("tasks", dm.tasks);
    w.field("busy_time", dm.busy_time);
    w.field("idle_time", dm.idle_time);
    w.field("bubble_fraction", dm.bubble_fraction);
    w.field("peak_memory", dm.peak.total);
    w.field("peak_time", dm.peak.time);
    w.field("memory_capacity", d < platform.devices.size() ? platform.devices[d].memory : 0.0);
    w.key("peak_breakdown");
    write_breakdown(w, dm.peak.breakdown);
    w.key("category_peaks");
    write_breakdown(w, dm.peak.category_peaks);
    if (!dm.resources.empty()) {
      w.key("resources");
      w.begin_array();
      for (const ResourceMetrics& r : dm.resources) {
        w.begin_object();
        w.field("type", r.type);
        w.field("busy_time", r.busy_time);
        w.field("utilization", r.utilization);
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();

  w.key("links");
  w.begin_array();
  for (const LinkMetrics& lm : m.links) {
    w.begin_object();
    w.field("name", lm.name);
    w.field("bytes", lm.bytes);
    w.field("busy_time", lm.busy_time);
    w.field("utilization", lm.utilization);
    w.end_object();
  }
  w.end_array();

  if (!m.collectives.empty()) {
    w.key("collectives");
    w.begin_array();
    for (const CollectiveMetrics& c : m.collectives) {
      w.begin_object();
      w.field("purpose", c.purpose);
      w.field("operation", c.operation);
      w.field("algorithm", c.algorithm);
      w.field("group_size", c.group_size);
      w.field("calls", c.calls);
      w.field("bytes", c.bytes);
      w.field("time", c.time);
      w.field("exposed_time", c.exposed_time);
      w.end_object();
    }
    w.end_array();
  }

  w.key("violations");
  w.begin_array();
  for (const MemoryViolation& v : m.violations) {
    w.begin_object();
    w.field("device", device_name(platform, v.device));
    w.field("time", v.time);
    w.field("used", v.used);
    w.field("capacity", v.capacity);
    w.field("pushed_over", std::string(to_string(v.pushed_over)));
    w.key("breakdown");
    write_breakdown(w, v.breakdown);
    w.end_object();
  }
  w.end_array();
  if (pattern != nullptr) {
    w.key("pattern");
    write_pattern(w, *pattern, platform);
  }
  if (split != nullptr) {
    w.key("split");
    write_split(w, *split, platform);
  }
  if (memory_saving != nullptr && !memory_saving->empty()) {
    w.key("memory_saving");
    w.begin_array();
    for (const StageMemorySaving& s : *memory_saving) {
      w.begin_object();
      w.field("stage", s.stage);
      w.field("device", device_name(platform, s.device));
      w.field("policy", s.policy);
      w.field("in_flight", s.in_flight);
      w.field("limit", s.limit);
      w.field("time", s.seconds);
      w.field("baseline_time", s.baseline_seconds);
      w.field("peak_memory", s.bytes);
      w.field("baseline_peak_memory", s.baseline_bytes);
      w.field("recomputed", s.recomputed);
      w.field("offloaded", s.offloaded);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  os << '\n';
}

}  // namespace pipesim
