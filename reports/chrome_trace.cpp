#include "reports/chrome_trace.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <tuple>
#include <vector>

#include "analysis/memory.hpp"
#include "reports/json_writer.hpp"
#include "reports/track_lanes.hpp"

namespace pipesim {
namespace {

constexpr int kDevicesPid = 0;
constexpr int kLinksPid = 1;

const char* short_kind(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward:
      return "F";
    case TaskKind::Backward:
      return "B";
    case TaskKind::BackwardInput:
      return "BI";
    case TaskKind::BackwardWeight:
      return "BW";
    case TaskKind::Recompute:
      return "R";
    case TaskKind::Update:
      return "U";
    case TaskKind::GradientNorm:
      return "N";
    case TaskKind::Transfer:
      return "T";
    case TaskKind::Offload:
      return "O";
    case TaskKind::Prefetch:
      return "P";
    case TaskKind::WeightFetch:
      return "WF";
    case TaskKind::Communication:
      return "C";
  }
  return "?";
}

struct Event {
  int group;  // 0 metadata, 1 timed
  double ts;  // microseconds
  int pid;
  int tid;
  std::uint64_t seq;  // task id, or device for counters
  std::string json;
};

// Builds one event's JSON with a reusable stream.
class EventBuilder {
 public:
  JsonWriter& begin() {
    buf_.str("");
    writer_ = std::make_unique<JsonWriter>(buf_);
    writer_->begin_object();
    return *writer_;
  }
  std::string end() {
    writer_->end_object();
    return buf_.str();
  }

 private:
  std::ostringstream buf_;
  std::unique_ptr<JsonWriter> writer_;
};

void add_metadata(std::vector<Event>& events, EventBuilder& b, const char* what, int pid, int tid,
                  const std::string& name, int sort_index) {
  auto& w = b.begin();
  w.field("name", what);
  w.field("ph", "M");
  w.field("pid", pid);
  if (tid >= 0) w.field("tid", tid);
  w.key("args");
  w.begin_object();
  if (sort_index >= 0)
    w.field("sort_index", sort_index);
  else
    w.field("name", name);
  w.end_object();
  events.push_back({0, 0, pid, tid, events.size(), b.end()});
}

}  // namespace

std::string trace_event_name(const Task& t) {
  std::string s = short_kind(t.kind);
  if (is_transfer(t.kind))
    s += " " + std::to_string(t.device) + "->" + std::to_string(t.peer);
  else if (t.stage >= 0)
    s += " s" + std::to_string(t.stage);
  if (t.microbatch >= 0) s += " mb" + std::to_string(t.microbatch);
  return s;
}

void write_chrome_trace(std::ostream& os, const TaskGraph& graph, const Timeline& timeline, const Platform& platform) {
  std::vector<Event> events;
  EventBuilder b;
  add_metadata(events, b, "process_name", kDevicesPid, -1, "devices", -1);
  add_metadata(events, b, "process_sort_index", kDevicesPid, -1, "", kDevicesPid);
  add_metadata(events, b, "process_name", kLinksPid, -1, "links", -1);
  add_metadata(events, b, "process_sort_index", kLinksPid, -1, "", kLinksPid);

  // What each track (device or link) shows: the tasks that ran to completion
  // (only they have an interval to draw); a transfer on every link of its route.
  std::vector<std::vector<TaskId>> device_tasks(platform.size()), link_tasks(timeline.links.size());
  const std::size_t routed = timeline.route_offsets.empty() ? 0 : timeline.route_offsets.size() - 1;
  for (TaskId id = 0; id < graph.size(); ++id) {
    if (!std::isfinite(timeline.start[id]) || !std::isfinite(timeline.finish[id])) continue;
    const Task& t = graph.task(id);
    if (!is_transfer(t.kind))
      device_tasks.at(t.device).push_back(id);
    else if (id < routed)
      for (auto l = timeline.route_begin(id); l != timeline.route_end(id); ++l) link_tasks.at(*l).push_back(id);
  }

  auto add_task = [&](TaskId id, int pid, int tid) {
    const Task& t = graph.task(id);
    const double ts = timeline.start[id] * 1e6;
    auto& w = b.begin();
    // A collective's steps say which collective they are (docs/parallelism.md).
    const CollectiveRecord* collective =
        t.collective >= 0 && t.collective < static_cast<int>(graph.collectives().size())
            ? &graph.collectives()[t.collective]
            : nullptr;
    w.field("name", collective ? collective->operation + " " + collective->purpose + " " + trace_event_name(t)
                               : trace_event_name(t));
    w.field("cat", collective ? std::string_view("collective") : to_string(t.kind));
    w.field("ph", "X");
    w.field("pid", pid);
    w.field("tid", tid);
    w.field("ts", ts);
    w.field("dur", (timeline.finish[id] - timeline.start[id]) * 1e6);
    w.key("args");
    w.begin_object();
    w.field("task", id);
    w.field("stage", t.stage);
    w.field("microbatch", t.microbatch);
    w.field("iteration", t.iteration);
    if (is_transfer(t.kind)) {
      w.field("from", t.device);
      w.field("to", t.peer);
      w.field("bytes", t.amount);
      if (collective) {
        w.field("collective", collective->operation);
        w.field("algorithm", collective->algorithm);
        w.field("purpose", collective->purpose);
      }
    } else {
      w.field("flops", t.amount);
    }
    w.end_object();
    events.push_back({1, ts, pid, tid, id, b.end()});
  };

  // Tasks that overlap on a track go to further lanes of it. Lane 0 keeps
  // tid = the track's index; lane j >= 1 is named "NAME #(j+1)", gets the next
  // free tid after all tracks, and sorts right after its track.
  auto add_process = [&](int pid, const std::vector<std::string>& names,
                         const std::vector<std::vector<TaskId>>& tasks) {
    int next_tid = static_cast<int>(names.size()), sort_index = 0;
    for (std::size_t track = 0; track < names.size(); ++track) {
      std::vector<LaneInterval> intervals;
      for (TaskId id : tasks[track]) intervals.push_back({timeline.start[id], timeline.finish[id]});
      const std::vector<int> lanes = assign_lanes(intervals);
      const int count = lanes.empty() ? 1 : *std::max_element(lanes.begin(), lanes.end()) + 1;
      std::vector<int> tid(count);
      for (int lane = 0; lane < count; ++lane) {
        tid[lane] = lane == 0 ? static_cast<int>(track) : next_tid++;
        add_metadata(events, b, "thread_name", pid, tid[lane],
                     lane == 0 ? names[track] : names[track] + " #" + std::to_string(lane + 1), -1);
        add_metadata(events, b, "thread_sort_index", pid, tid[lane], "", sort_index++);
      }
      for (std::size_t i = 0; i < tasks[track].size(); ++i) add_task(tasks[track][i], pid, tid[lanes[i]]);
    }
  };
  std::vector<std::string> device_names, link_names;
  for (const Device& d : platform.devices) device_names.push_back(d.name);
  for (const LinkInfo& l : timeline.links) link_names.push_back(l.name);
  add_process(kDevicesPid, device_names, device_tasks);
  add_process(kLinksPid, link_names, link_tasks);

  // One counter sample per device and instant, with every category's level.
  for_each_memory_instant(graph, timeline, [&](double time, int d, const MemoryBreakdown& level) {
    auto& w = b.begin();
    w.field("name", "memory " + platform.devices[d].name);
    w.field("ph", "C");
    w.field("pid", kDevicesPid);
    w.field("ts", time * 1e6);
    w.key("args");
    w.begin_object();
    for (int c = 0; c < kMemoryCategoryCount; ++c) w.field(to_string(static_cast<MemoryCategory>(c)), level[c]);
    w.end_object();
    events.push_back({1, time * 1e6, kDevicesPid, -1, static_cast<std::uint64_t>(d), b.end()});
  });

  std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.group, x.ts, x.pid, x.tid, x.seq) < std::tie(y.group, y.ts, y.pid, y.tid, y.seq);
  });
  os << "{\"traceEvents\":[";
  for (std::size_t i = 0; i < events.size(); ++i) os << (i ? ",\n" : "\n") << events[i].json;
  os << "\n],\"displayTimeUnit\":\"ms\"}\n";
}

}  // namespace pipesim
