// The bare SimGrid reference (pipesim's overhead measured against SimGrid
// alone) for any schedule: runs a task graph
// dumped by the benchmarks (bench/bare/graph_dump_format.hpp) directly on
// SimGrid 3.32, with no pipesim code, by the rules of pipesim's engine
// (sim/engine/executor.cpp):
//  - a task starts once its dependencies, and the previous task of its
//    device's order if it has one, are done;
//  - a compute task runs as an Exec on its device, one at a time per device;
//    among a device's ready tasks the lowest priority runs first. A device
//    with an order starts at once; a device without one waits for a
//    zero-flop tick, so that every task made ready at this instant competes;
//  - a transfer runs as Comm::sendto_init with llround(bytes) of payload;
//  - zero-cost tasks (0 flops, 0 bytes, or a transfer to its own device)
//    complete at once.
// No actors: each activity is started from the completion callback of what
// it waits for. pipesim's default SimGrid settings (default_simgrid_config()
// in sim/engine/simgrid_settings.cpp), then any --cfg=KEY:VALUE given after
// the files. Prints the makespan (17 digits) on stdout and the time spent
// reading the dump on stderr.
//
// usage: pipesim_bare_graph GRAPH.bin PLATFORM.xml [--cfg=KEY:VALUE ...]
// exit: 0 done, 1 deadlock (tasks left), 2 bad input.
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "bench/bare/graph_dump_format.hpp"

namespace s4u = simgrid::s4u;
using pipesim::bare::kCompute;
using pipesim::bare::kTransfer;

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uintptr_t kTickTag = std::uintptr_t{1} << (sizeof(std::uintptr_t) * 8 - 1);

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  std::fprintf(stderr, "pipesim_bare_graph: error: %s: %s\n", file.c_str(), what.c_str());
  std::exit(2);
}

struct Graph {
  std::vector<std::string> hosts;  // per device
  std::vector<std::uint8_t> kind;
  std::vector<std::int32_t> device, peer;
  std::vector<double> amount, priority;
  std::vector<std::uint32_t> dep_offsets, dep_ids, order_offsets, order_ids;
  std::size_t size() const { return kind.size(); }
};

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {
    if (!f_) fail(path, "cannot open the graph dump");
  }
  ~Reader() { std::fclose(f_); }
  template <class T>
  void read(T* out, std::size_t count) {
    if (count != 0 && std::fread(out, sizeof(T), count, f_) != count) fail(path_, "truncated graph dump");
  }
  template <class T>
  void read(std::vector<T>& out, std::uint64_t count) {
    if (count > (std::uint64_t{1} << 32)) fail(path_, "count out of range in the graph dump");
    out.resize(count);
    read(out.data(), out.size());
  }
  template <class T>
  T one() {
    T v;
    read(&v, 1);
    return v;
  }
  bool at_end() { return std::fgetc(f_) == EOF; }

 private:
  std::string path_;
  std::FILE* f_;
};

Graph read_graph(const std::string& path) {
  Reader in(path);
  char magic[8];
  in.read(magic, 8);
  if (std::memcmp(magic, pipesim::bare::kGraphDumpMagic, 8) != 0) fail(path, "not a graph dump (bad magic)");
  const auto devices = in.one<std::uint32_t>();
  in.one<std::uint32_t>();
  const auto n = in.one<std::uint64_t>(), deps = in.one<std::uint64_t>(), ordered = in.one<std::uint64_t>();
  if (n >= kNone || devices > (1u << 24)) fail(path, "task or device count out of range");
  Graph g;
  for (std::uint32_t d = 0; d < devices; ++d) {
    const auto length = in.one<std::uint32_t>();
    if (length > 4096) fail(path, "host name of device " + std::to_string(d) + " longer than 4096 bytes");
    std::string name(length, '\0');
    in.read(name.data(), name.size());
    g.hosts.push_back(name);
  }
  in.read(g.kind, n);
  in.read(g.device, n);
  in.read(g.peer, n);
  in.read(g.amount, n);
  in.read(g.priority, n);
  in.read(g.dep_offsets, n + 1);
  in.read(g.dep_ids, deps);
  in.read(g.order_offsets, std::uint64_t{devices} + 1);
  in.read(g.order_ids, ordered);
  if (!in.at_end()) fail(path, "trailing bytes after the graph dump");
  // Everything the executor indexes must be in range.
  auto bad = [&](const std::string& what) { fail(path, what); };
  if (g.dep_offsets.front() != 0 || g.dep_offsets.back() != deps)
    bad("dependency offsets do not cover the dependencies");
  if (g.order_offsets.front() != 0 || g.order_offsets.back() != ordered) bad("order offsets do not cover the orders");
  for (std::size_t t = 0; t < n; ++t) {
    if (g.dep_offsets[t] > g.dep_offsets[t + 1]) bad("dependency offsets decrease at task " + std::to_string(t));
    if (g.kind[t] != kCompute && g.kind[t] != kTransfer) bad("task " + std::to_string(t) + ": bad kind");
    if (g.device[t] < 0 || static_cast<std::uint32_t>(g.device[t]) >= devices ||
        (g.kind[t] == kTransfer && (g.peer[t] < 0 || static_cast<std::uint32_t>(g.peer[t]) >= devices)))
      bad("task " + std::to_string(t) + ": device out of range");
    if (!std::isfinite(g.amount[t]) || g.amount[t] < 0 || (g.kind[t] == kTransfer && g.amount[t] >= 9.2e18))
      bad("task " + std::to_string(t) + ": amount not finite and >= 0");
  }
  for (const std::uint32_t d : g.dep_ids)
    if (d >= n) bad("dependency out of range");
  for (std::uint32_t d = 0; d < devices; ++d) {
    if (g.order_offsets[d] > g.order_offsets[d + 1]) bad("order offsets decrease at device " + std::to_string(d));
    for (std::uint32_t i = g.order_offsets[d]; i < g.order_offsets[d + 1]; ++i) {
      const std::uint32_t t = g.order_ids[i];
      if (t >= n || g.kind[t] != kCompute || g.device[t] != static_cast<std::int32_t>(d))
        bad("device " + std::to_string(d) + "'s order lists a task that is not one of its compute tasks");
    }
  }
  return g;
}

class Run {
 public:
  Run(const Graph& g, std::vector<s4u::Host*> hosts) : g_(g), hosts_(std::move(hosts)) {
    const std::size_t n = g.size(), devices = hosts_.size();
    waiting_.assign(n, 0);
    order_next_.assign(n, kNone);
    live_.resize(n);
    ready_.resize(devices);
    busy_.assign(devices, 0);
    tick_.resize(devices);
    greedy_.assign(devices, 1);
    // Successors in compressed rows, as the dependencies are stored the other way.
    succ_offsets_.assign(n + 1, 0);
    for (const std::uint32_t d : g.dep_ids) ++succ_offsets_[d + 1];
    for (std::size_t i = 0; i < n; ++i) succ_offsets_[i + 1] += succ_offsets_[i];
    succ_ids_.resize(g.dep_ids.size());
    std::vector<std::uint32_t> fill(succ_offsets_.begin(), succ_offsets_.end() - 1);
    for (std::uint32_t t = 0; t < n; ++t) {
      waiting_[t] = g.dep_offsets[t + 1] - g.dep_offsets[t];
      for (std::uint32_t i = g.dep_offsets[t]; i < g.dep_offsets[t + 1]; ++i) succ_ids_[fill[g.dep_ids[i]]++] = t;
    }
    // An ordered task also waits for the one before it.
    for (std::size_t d = 0; d < devices; ++d)
      for (std::uint32_t i = g.order_offsets[d]; i < g.order_offsets[d + 1]; ++i) {
        greedy_[d] = 0;
        if (i == g.order_offsets[d]) continue;
        const std::uint32_t previous = g.order_ids[i - 1], next = g.order_ids[i];
        if (order_next_[previous] != kNone) fail("graph dump", "a task appears twice in the orders");
        order_next_[previous] = next;
        ++waiting_[next];
      }
  }

  // Returns the number of tasks completed; makespan() is the last completion.
  std::size_t run(s4u::Engine& engine) {
    s4u::Activity::on_completion_cb([this](const s4u::Activity& a) { on_completion(a); });
    for (std::uint32_t t = 0; t < g_.size(); ++t)
      if (waiting_[t] == 0) make_ready(t);
    settle();
    engine.run();
    graveyard_.clear();
    return completed_;
  }
  double makespan() const { return makespan_; }

 private:
  void make_ready(std::uint32_t t) {
    const auto d = static_cast<std::uint32_t>(g_.device[t]);
    if (g_.kind[t] == kCompute) {
      ready_[d].push({g_.priority[t], t});
      touched_.push_back(d);
      return;
    }
    if (g_.device[t] == g_.peer[t] || g_.amount[t] <= 0) {
      instant_.push_back(t);
      return;
    }
    auto comm = s4u::Comm::sendto_init(hosts_[d], hosts_[g_.peer[t]]);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(g_.amount[t])));
    launch(t, std::move(comm));
  }

  void defer_dispatch(std::uint32_t d) {
    if (tick_[d] || busy_[d] || ready_[d].empty()) return;
    auto tick = s4u::Exec::init();
    tick->set_flops_amount(0);
    tick->set_host(hosts_[d]);
    tick->set_data(reinterpret_cast<void*>(kTickTag | d));
    tick->start();
    tick_[d] = std::move(tick);
  }

  void dispatch(std::uint32_t d) {
    if (busy_[d] || ready_[d].empty()) return;
    const std::uint32_t t = ready_[d].top().second;
    ready_[d].pop();
    busy_[d] = 1;
    if (g_.amount[t] <= 0) {
      instant_.push_back(t);
      return;
    }
    auto exec = s4u::Exec::init();
    exec->set_flops_amount(g_.amount[t]);
    exec->set_host(hosts_[d]);
    launch(t, std::move(exec));
  }

  void launch(std::uint32_t t, s4u::ActivityPtr activity) {
    activity->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(t) + 1));
    activity->start();
    live_[t] = std::move(activity);  // SimGrid frees an activity nobody holds
  }

  void on_completion(const s4u::Activity& activity) {
    graveyard_.clear();  // released one callback late: SimGrid still uses the one completing now
    const auto tag = reinterpret_cast<std::uintptr_t>(activity.get_data<void>());
    if (tag == 0) return;
    if (tag & kTickTag) {
      const auto d = static_cast<std::uint32_t>(tag & ~kTickTag);
      graveyard_.push_back(std::move(tick_[d]));
      dispatch(d);
    } else {
      const auto t = static_cast<std::uint32_t>(tag - 1);
      graveyard_.push_back(std::move(live_[t]));
      complete(t);
    }
    settle();
  }

  void complete(std::uint32_t t) {
    ++completed_;
    makespan_ = std::max(makespan_, s4u::Engine::get_clock());
    for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i)
      if (--waiting_[succ_ids_[i]] == 0) make_ready(succ_ids_[i]);
    if (order_next_[t] != kNone && --waiting_[order_next_[t]] == 0) make_ready(order_next_[t]);
    if (g_.kind[t] == kCompute) {
      const auto d = static_cast<std::uint32_t>(g_.device[t]);
      busy_[d] = 0;
      touched_.push_back(d);
    }
  }

  // Zero-cost completions and dispatches until nothing changes.
  void settle() {
    while (!instant_.empty() || !touched_.empty()) {
      while (!instant_.empty()) {
        const std::uint32_t t = instant_.back();
        instant_.pop_back();
        complete(t);
      }
      scratch_.swap(touched_);
      for (const std::uint32_t d : scratch_) (greedy_[d] ? defer_dispatch(d) : dispatch(d));
      scratch_.clear();
    }
  }

  using ReadyQueue = std::priority_queue<std::pair<double, std::uint32_t>,
                                         std::vector<std::pair<double, std::uint32_t>>, std::greater<>>;
  const Graph& g_;
  std::vector<s4u::Host*> hosts_;
  std::vector<std::uint32_t> waiting_, succ_offsets_, succ_ids_, order_next_;
  std::vector<s4u::ActivityPtr> live_, graveyard_, tick_;
  std::vector<ReadyQueue> ready_;
  std::vector<char> busy_, greedy_;
  std::vector<std::uint32_t> instant_, touched_, scratch_;
  std::size_t completed_ = 0;
  double makespan_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s GRAPH.bin PLATFORM.xml [--cfg=KEY:VALUE ...]\n", argv[0]);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Graph graph = read_graph(argv[1]);
  const double read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // pipesim's defaults first, the caller's --cfg after them (the last one wins).
  std::vector<std::string> args = {argv[0],
                                   "--log=root.thresh:critical",
                                   "--log=xbt_cfg.thresh:critical",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=network/TCP-gamma:0",
                                   "--cfg=cpu/optim:TI"};
  for (int i = 3; i < argc; ++i) args.push_back(argv[i]);
  std::vector<char*> sg_argv;
  for (auto& a : args) sg_argv.push_back(a.data());
  sg_argv.push_back(nullptr);
  int sg_argc = static_cast<int>(args.size());
  s4u::Engine engine(&sg_argc, sg_argv.data());
  engine.load_platform(argv[2]);
  std::vector<s4u::Host*> hosts;
  for (const std::string& name : graph.hosts) {
    s4u::Host* host = engine.host_by_name_or_null(name);
    if (!host) fail(argv[2], "no host '" + name + "' (named by the graph dump)");
    hosts.push_back(host);
  }
  Run run(graph, std::move(hosts));
  const std::size_t completed = run.run(engine);
  if (completed != graph.size()) {
    std::fprintf(stderr, "pipesim_bare_graph: deadlock: %zu of %zu tasks completed\n", completed, graph.size());
    return 1;
  }
  std::printf("%.17g\n", run.makespan());
  std::fprintf(stderr, "read_seconds %.6f\n", read_seconds);
  return 0;
}
