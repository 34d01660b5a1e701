#include "sim/memory_events.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace pipesim {
namespace {

constexpr std::uint32_t kAtStartBit = 0x80000000u;  // sorts a task's start events after all finish events

struct Event {
  double time;
  std::uint32_t key;  // task | kAtStartBit for effects at start
  bool operator<(const Event& o) const { return time != o.time ? time < o.time : key < o.key; }
};

// Visits each event (one per task and moment that has effects) whose time
// is finite, of the tasks [first, last) of `graph` (all by default).
template <class F>
void for_each_event(const TaskGraph& graph, const std::vector<double>& start, const std::vector<double>& finish,
                    const std::vector<std::uint8_t>& moments, F f, TaskId first = 0,
                    TaskId last = std::numeric_limits<TaskId>::max()) {
  last = std::min<TaskId>(last, static_cast<TaskId>(graph.size()));
  for (TaskId t = first; t < last; ++t) {
    const std::uint8_t m = moments[graph.shape_of(t)];
    if ((m & 1) && std::isfinite(finish[t])) f(Event{finish[t], t});
    if ((m & 2) && std::isfinite(start[t])) f(Event{start[t], t | kAtStartBit});
  }
}

// Takes the events in (time, key) order and emits them instant by instant:
// an instant is every event within kSameInstant of its first, reported at
// that first time, frees before allocations, each in key order. An instant
// may span windows, so the last one is held until the next event or finish().
template <class V>
class InstantEmitter {
 public:
  InstantEmitter(const TaskGraph& graph, const V& visit) : graph_(graph), visit_(visit) {}

  void add(const Event& e) {
    if (!instant_.empty() && !(e.time - instant_.front().time < kSameInstant)) finish();
    instant_.push_back(e);
  }

  void finish() {
    if (instant_.empty()) return;
    const double time = instant_.front().time;
    if (instant_.back().time != time)  // ulps apart: order as if they were one time
      std::sort(instant_.begin(), instant_.end(), [](const Event& a, const Event& b) { return a.key < b.key; });
    for (const bool allocations : {false, true})
      for (const Event& event : instant_) {
        const TaskId t = event.key & ~kAtStartBit;
        const MemoryWhen when = (event.key & kAtStartBit) ? MemoryWhen::AtStart : MemoryWhen::AtFinish;
        for (const MemoryEffect& e : graph_.memory_effects(t))
          if (e.when == when && (e.bytes > 0) == allocations) visit_(time, t, e);
      }
    instant_.clear();
  }

 private:
  const TaskGraph& graph_;
  const V& visit_;
  std::vector<Event> instant_;
};

}  // namespace

void for_each_memory_event(const TaskGraph& graph, const std::vector<double>& start, const std::vector<double>& finish,
                           const std::function<void(double, TaskId, const MemoryEffect&)>& visit,
                           std::size_t min_window) {
  if (start.size() < graph.size() || finish.size() < graph.size())
    throw std::invalid_argument("memory: timeline has fewer tasks than the graph");
  if (graph.size() >= kAtStartBit) throw std::invalid_argument("memory: more than 2^31 tasks");
  // Per shape: bit 0 = effects at finish, bit 1 = effects at start.
  std::vector<std::uint8_t> moments(graph.shape_count(), 0);
  for (std::uint32_t s = 0; s < graph.shape_count(); ++s)
    for (const MemoryEffect& e : graph.effects_of(graph.shape(s))) moments[s] |= e.when == MemoryWhen::AtStart ? 2 : 1;

  std::size_t count = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for_each_event(graph, start, finish, moments, [&](const Event& e) {
    ++count;
    lo = std::min(lo, e.time);
    hi = std::max(hi, e.time);
  });
  const std::size_t window = std::max<std::size_t>(std::max<std::size_t>(min_window, 1), count / 8 + 1);
  // A histogram of the times over bins (about 16 events each) cuts the
  // events into windows of consecutive bins, each collected into its bins'
  // slots, sorted bin by bin (small sorts) and emitted in turn. A bin is a
  // monotone function of time, so bins and windows never interleave.
  const std::size_t bins = std::clamp<std::size_t>(count / 16, 1, std::size_t{1} << 20);
  const double scale = hi > lo && std::isfinite(hi - lo) ? static_cast<double>(bins) / (hi - lo) : 0;
  auto bin = [&](double time) { return std::min(bins - 1, static_cast<std::size_t>((time - lo) * scale)); };
  std::vector<std::size_t> histogram(bins, 0);
  // Per bin, the first and last task with an event in it: a window's pass
  // reads only its tasks' range (ids roughly follow time in a pipeline).
  std::vector<TaskId> first_task(bins, std::numeric_limits<TaskId>::max()), last_task(bins, 0);
  for_each_event(graph, start, finish, moments, [&](const Event& e) {
    const std::size_t b = bin(e.time);
    const TaskId t = e.key & ~kAtStartBit;
    ++histogram[b];
    first_task[b] = std::min(first_task[b], t);
    last_task[b] = std::max(last_task[b], t);
  });
  struct Window {
    std::size_t first, last, held;  // bins [first, last], events
    TaskId from, to;                // the tasks with events in them: [from, to)
  };
  std::vector<Window> windows;
  std::size_t largest = 0;
  for (std::size_t first = 0; first < bins;) {
    std::size_t last = first, held = histogram[first];
    while (last + 1 < bins && held + histogram[last + 1] <= window) held += histogram[++last];
    TaskId from = std::numeric_limits<TaskId>::max(), to = 0;
    for (std::size_t b = first; b <= last; ++b)
      if (histogram[b] > 0) from = std::min(from, first_task[b]), to = std::max(to, last_task[b] + 1);
    windows.push_back({first, last, held, from, to});
    largest = std::max(largest, held);
    first = last + 1;
  }
  std::vector<Event> events;
  events.reserve(largest);        // once: growing would hold two copies
  std::vector<std::size_t> slot;  // per bin of the window: where its next event goes
  InstantEmitter instants(graph, visit);
  for (const auto& [first, last, held, from, to] : windows) {
    slot.assign(last - first + 2, 0);
    for (std::size_t b = first; b <= last; ++b) slot[b - first + 1] = slot[b - first] + histogram[b];
    events.resize(held);
    for_each_event(
        graph, start, finish, moments,
        [&](const Event& e) {
          const std::size_t b = bin(e.time);
          if (b >= first && b <= last) events[slot[b - first]++] = e;
        },
        from, to);
    // slot[b - first] is now where bin b ends, the start of bin b + 1.
    for (std::size_t b = first, from = 0; b <= last; from = slot[b - first], ++b)
      std::sort(events.begin() + static_cast<std::ptrdiff_t>(from),
                events.begin() + static_cast<std::ptrdiff_t>(slot[b - first]));
    for (const Event& e : events) instants.add(e);
  }
  instants.finish();
}

}  // namespace pipesim
