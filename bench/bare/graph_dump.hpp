// Writes a pipesim task graph as the dump that the bare SimGrid program
// (bench/bare/bare_graph.cpp) runs, and builds a workload's graph with
// pipesim's own generator to dump it (bench and tests side: links pipesim).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bare/graph_dump_format.hpp"
#include "parallelism/job.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "studies/forked_run.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim::bench {

namespace detail {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

template <class T>
void put(std::FILE* f, const T* data, std::size_t count) {
  if (count != 0 && std::fwrite(data, sizeof(T), count, f) != count)
    throw std::runtime_error("graph dump: short write");
}
template <class T>
void put(std::FILE* f, const std::vector<T>& v) {
  put(f, v.data(), v.size());
}
template <class T>
void put_one(std::FILE* f, T value) {
  put(f, &value, 1);
}

}  // namespace detail

// Throws std::invalid_argument for what the dump cannot say: a compute task
// on another resource or lane, with a share of its resource, or running
// beside the previous ordered task.
inline void write_graph_dump(const TaskGraph& graph, const Platform& platform, const std::string& path) {
  using detail::put;
  using detail::put_one;
  const std::size_t n = graph.size();
  std::vector<std::uint8_t> kind(n);
  std::vector<std::int32_t> device(n), peer(n);
  std::vector<double> amount(n), priority(n);
  std::vector<std::uint32_t> dep_offsets(n + 1, 0), dep_ids;
  dep_ids.reserve(graph.dependency_count());
  for (TaskId t = 0; t < n; ++t) {
    const Task& task = graph.task(t);
    const bool transfer = is_transfer(task.kind);
    if (!transfer && (task.resource != 0 || task.lane != 0 || task.share != 1 || graph.beside_previous(t)))
      throw std::invalid_argument("graph dump: " + graph.describe(t) +
                                  " uses lanes, resources or shares, which the bare program does not run");
    kind[t] = transfer ? bare::kTransfer : bare::kCompute;
    device[t] = task.device;
    peer[t] = transfer ? task.peer : -1;
    amount[t] = task.amount;
    priority[t] = task.priority;
    dep_ids.insert(dep_ids.end(), graph.deps_begin(t), graph.deps_end(t));
    dep_offsets[t + 1] = static_cast<std::uint32_t>(dep_ids.size());
  }
  const auto devices = static_cast<std::uint32_t>(graph.device_count());
  if (devices != platform.devices.size())
    throw std::invalid_argument("graph dump: graph and platform device counts differ");
  std::vector<std::uint32_t> order_offsets(devices + 1, 0), order_ids;
  for (std::uint32_t d = 0; d < devices; ++d) {
    const auto& order = graph.device_order(static_cast<int>(d));
    order_ids.insert(order_ids.end(), order.begin(), order.end());
    order_offsets[d + 1] = static_cast<std::uint32_t>(order_ids.size());
  }
  std::unique_ptr<std::FILE, detail::FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error("graph dump: cannot write " + path);
  std::FILE* f = file.get();
  put(f, bare::kGraphDumpMagic, sizeof bare::kGraphDumpMagic);
  put_one(f, devices);
  put_one(f, std::uint32_t{0});
  put_one(f, static_cast<std::uint64_t>(n));
  put_one(f, static_cast<std::uint64_t>(dep_ids.size()));
  put_one(f, static_cast<std::uint64_t>(order_ids.size()));
  for (const Device& d : platform.devices) {
    // The device's own SimGrid host (resource 0), as the engine runs it.
    const std::string& host = d.resources.empty() ? d.name : d.resources.front().host;
    put_one(f, static_cast<std::uint32_t>(host.size()));
    put(f, host.data(), host.size());
  }
  put(f, kind);
  put(f, device);
  put(f, peer);
  put(f, amount);
  put(f, priority);
  put(f, dep_offsets);
  put(f, dep_ids);
  put(f, order_offsets);
  put(f, order_ids);
  if (std::fflush(f) != 0) throw std::runtime_error("graph dump: short write to " + path);
}

// Builds WORKLOAD's task graph on PLATFORM as `pipesim run` does (the
// registry's generate(), on the platform a Simulation loads) and dumps it to
// DUMP. Runs in a forked child (one SimGrid engine per process); returns the
// number of tasks. Throws what the child threw.
inline std::size_t dump_workload_graph(const std::string& platform, const std::string& workload,
                                       const std::string& dump) {
  const std::string tasks = run_forked([&] {
    Simulation simulation(platform);
    const Workload w = time_model_layers(load_workload(workload), simulation.platform());  // as `pipesim run`
    const GeneratedSchedule schedule = generate_job(w, simulation.platform());
    write_graph_dump(schedule.graph, simulation.platform(), dump);
    return std::to_string(schedule.graph.size());
  });
  return std::stoul(tasks);
}

}  // namespace pipesim::bench
