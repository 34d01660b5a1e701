// Seed 002's sequences executed on SimGrid (schedules/memory_saving/
// sequence_graph): simulated times and GPU memory equal what the programs
// predict, offloads and prefetches are real transfers to host memory, and
// Lemma 1's idle time is what a simulation of a linear transfer finds.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "analysis/memory.hpp"
#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/memory_saving/offloading.hpp"
#include "schedules/memory_saving/sequence_graph_internal.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/schedules/memory_saving/idle_time.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim::memory_saving {
namespace {

// `pairs` GPUs gpuK (1 Gf/s) each with its own host memory memK (kind host)
// behind a PCIe link of bandwidth bandwidths[K] bytes/s and latency 0 (the
// programs know no latency).
std::string pairs_platform(const std::vector<double>& bandwidths) {
  pipesim::testing::PlatformXml x;
  for (std::size_t k = 0; k < bandwidths.size(); ++k) {
    const std::string n = std::to_string(k);
    x.host("gpu" + n, "1Gf", {{"memory", "1TiB"}});
    x.host("mem" + n, "1Gf", {{"memory", "1TiB"}, {"kind", "host"}});
  }
  for (std::size_t k = 0; k < bandwidths.size(); ++k) {
    const std::string n = std::to_string(k);
    char bw[64];
    std::snprintf(bw, sizeof bw, "%.17gBps", bandwidths[k]);
    x.link("pcie" + n, bw, "0s", "SPLITDUPLEX").route("gpu" + n, "mem" + n, {{"pcie" + n, "UP"}});
  }
  return x.write("pairs.xml");
}

constexpr double kUnit = 1e6;  // bytes per chain size unit (SimGrid moves whole bytes)
constexpr double kSpeed = 1e9;

Chain in_bytes(Chain c) {
  c.input_size *= kUnit;
  c.input_gradient_size *= kUnit;
  for (ChainLayer& l : c.layers) {
    for (double* x : {&l.output_size, &l.tape_size, &l.gradient_size, &l.forward_overhead, &l.backward_overhead})
      *x *= kUnit;
  }
  return c;
}

struct Instance {
  Chain chain;
  Solution solution;
  double limit = 0;
  std::vector<TaskId> ids;
};

struct SimulatedCounts {
  int offloads = 0;  // offload transfers that move bytes
  int recomputes = 0;
  int host_series = 0;  // instances whose host memory held bytes
};

// Runs every instance on its own GPU / host-memory pair, all in one
// simulation, and checks that it follows its program: every operation starts
// when the program says, the run ends at its makespan, the GPU peaks at its
// peak within the limit, and the host memory holds at most the offloaded
// bytes (`offloaded(chain, layer)` each) and none at the end.
template <class OffloadedBytes>
SimulatedCounts simulate_instances(std::vector<Instance>& runs, const std::vector<double>& bandwidths,
                                   const OffloadedBytes& offloaded_bytes) {
  Simulation sim(pairs_platform(bandwidths));
  const Platform& platform = sim.platform();
  TaskGraph graph(platform.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    ChainPlacement where;
    where.gpu = platform.find("gpu" + std::to_string(k));
    where.host_memory = platform.find("mem" + std::to_string(k));
    where.gpu_speed = kSpeed;
    where.microbatch = static_cast<int>(k);
    runs[k].ids = append_chain_sequence(graph, runs[k].chain, runs[k].solution.ops, where);
  }
  SimulatedCounts counts;
  for (const Task& t : graph.tasks()) {
    counts.offloads += t.kind == TaskKind::Offload && t.amount > 0;
    counts.recomputes += t.kind == TaskKind::Recompute;
  }
  const Timeline timeline = sim.run(graph);
  EXPECT_TRUE(timeline.completed());
  if (!timeline.completed()) return counts;
  const std::vector<DevicePeak> peaks = peak_memory(graph, timeline);
  const std::vector<MemorySample> trace = memory_trace(graph, timeline);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Instance& r = runs[k];
    const std::string where = "instance " + std::to_string(k);
    double end = 0;
    for (std::size_t n = 0; n < r.ids.size(); ++n) {
      EXPECT_NEAR(timeline.start[r.ids[n]], r.solution.ops[n].start, 1e-6 * r.solution.makespan)
          << where << " op " << n;
      end = std::max(end, timeline.finish[r.ids[n]]);
    }
    EXPECT_NEAR(end, r.solution.makespan, 1e-6 * r.solution.makespan) << where;
    const int gpu = platform.find("gpu" + std::to_string(k)), mem = platform.find("mem" + std::to_string(k));
    EXPECT_NEAR(peaks[gpu].total, r.solution.peak_memory, 1e-6 * r.solution.peak_memory) << where;
    EXPECT_LE(peaks[gpu].total, r.limit) << where;
    double offloaded = 0;
    for (const Operation& op : r.solution.ops)
      offloaded += op.kind == OpKind::Offload ? offloaded_bytes(r.chain, op.layer) : 0;
    if (offloaded > 0) {
      ++counts.host_series;
      EXPECT_GT(peaks[mem].total, 0) << where;
      EXPECT_LE(peaks[mem].total, offloaded) << where;
      double level = -1;
      for (const MemorySample& s : trace)
        if (s.device == mem) level = s.bytes;
      EXPECT_EQ(level, 0) << where;  // everything prefetched back
    }
  }
  return counts;
}

// Random small chains, half by rematerialization alone, half with offloading,
// each on its own GPU / host-memory pair, all in one simulation: every
// operation starts when the program says, the GPU peaks at the program's
// peak within the limit, and offloaded bytes show on the host device.
TEST(MemorySavingExecution, SimulatedTimesAndPeaksEqualThePrograms) {
  std::mt19937 rng(15);
  const int half = 30;
  std::vector<Instance> runs;
  std::vector<double> bandwidths;
  for (int k = 0; k < 2 * half; ++k) {
    const bool offload = k >= half;
    Instance r;
    r.chain = in_bytes(testing::random_integer_chain(rng, offload ? 5 + k % 4 : 2 + k % 5));
    const double beta = offload ? (k % 3 + 1) * kUnit : kUnit;
    const double least = offload ? min_feasible_limit_offloading(r.chain, beta) : min_feasible_limit(r.chain);
    r.limit = least + std::uniform_int_distribution<int>(0, 4)(rng) * kUnit;
    const int slots = static_cast<int>(std::llround(r.limit / kUnit));  // exact grid: sizes are whole units
    r.solution =
        offload ? solve_offloading(r.chain, r.limit, slots, beta) : solve_rematerialization(r.chain, r.limit, slots);
    ASSERT_TRUE(r.solution.feasible) << k;
    runs.push_back(r);
    bandwidths.push_back(beta);
  }
  // seed 002's offloading moves the activations a^i held between segments
  const SimulatedCounts counts =
      simulate_instances(runs, bandwidths, [](const Chain& c, int layer) { return c.a(layer); });
  EXPECT_EQ(counts.offloads, 31);  // the instances do offload and recompute
  EXPECT_EQ(counts.recomputes, 197);
  EXPECT_EQ(counts.host_series, 17);
}

// Offloading alone: tapes move to host memory and back, nothing is
// recomputed; simulated starts, end and GPU peak are the program's.
TEST(MemorySavingExecution, OffloadAloneRunsAsTheProgramSays) {
  std::mt19937 rng(1515);
  const int count = 24;
  std::vector<Instance> runs;
  std::vector<double> bandwidths;
  for (int k = 0; k < count; ++k) {
    Instance r;
    r.chain = in_bytes(testing::random_integer_chain(rng, 4 + k % 6));
    const double beta = (k % 3 + 1) * kUnit;
    r.limit = min_feasible_limit_offload_only(r.chain, beta) + std::uniform_int_distribution<int>(0, 4)(rng) * kUnit;
    r.solution = solve_offload_only(r.chain, r.limit, static_cast<int>(std::llround(r.limit / kUnit)), beta);
    ASSERT_TRUE(r.solution.feasible) << k;
    runs.push_back(r);
    bandwidths.push_back(beta);
  }
  // tapes: abar^i bytes each
  const SimulatedCounts counts =
      simulate_instances(runs, bandwidths, [](const Chain& c, int layer) { return c.abar(layer); });
  EXPECT_EQ(counts.offloads, 76);  // tapes moved, nothing recomputed
  EXPECT_EQ(counts.recomputes, 0);
  EXPECT_EQ(counts.host_series, 23);
}

// Lemma 1: operations run in order on a GPU while a transfer moves data at β
// in chunks, so that memory moves as in the lemma at every instant an
// operation starts (offload) or ends (prefetch). Times in seconds with
// microsecond resolution and β a whole number of bytes per microsecond, so
// every threshold is a whole number of bytes.
struct LemmaInstance {
  std::vector<TimedNeed> ops;  // memory in bytes
  double m_min = 0, beta = 0, prefetched = 0;
  bool prefetch = false;
  std::vector<TaskId> compute;
  double capacity = 0;
};

double busy_time(const std::vector<TimedNeed>& ops) {
  double busy = 0;
  for (const TimedNeed& o : ops) busy += o.duration;
  return busy;
}

// Offload: the GPU starts with the data to offload; chunk boundaries are the
// operations' thresholds M_o - m_min; each chunk frees its bytes when it
// ends, and an operation waits for the chunk that reaches its threshold.
void add_offload(TaskGraph& g, LemmaInstance& x, int gpu, int mem) {
  std::vector<double> cuts;
  for (const TimedNeed& o : x.ops)
    if (o.memory > x.m_min) cuts.push_back(o.memory - x.m_min);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const double held = cuts.empty() ? 0 : cuts.back();
  x.capacity = x.m_min + held;
  g.add_static_memory(gpu, MemoryCategory::Activations, held);
  std::vector<TaskId> chunk;
  double moved = 0;
  for (double cut : cuts) {
    Task t{TaskKind::Offload, gpu, mem, cut - moved};
    chunk.push_back(chunk.empty() ? g.add(t) : g.add(t, {chunk.back()}));
    g.add_memory(chunk.back(), gpu, MemoryCategory::Activations, MemoryWhen::AtFinish, -(cut - moved));
    moved = cut;
  }
  for (const TimedNeed& o : x.ops) {
    Task t{TaskKind::Forward, gpu, -1, o.duration * kSpeed};
    std::vector<TaskId> deps;
    if (o.memory > x.m_min)
      deps.push_back(chunk[std::lower_bound(cuts.begin(), cuts.end(), o.memory - x.m_min) - cuts.begin()]);
    x.compute.push_back(g.add(t, deps));
    g.append_to_order(x.compute.back());
    g.add_memory(x.compute.back(), gpu, MemoryCategory::Activations, MemoryWhen::AtStart, o.memory);
    g.add_memory(x.compute.back(), gpu, MemoryCategory::Activations, MemoryWhen::AtFinish, -o.memory);
  }
}

// Prefetch of `prefetched` bytes into a GPU of capacity m_min + prefetched:
// the bytes past prefetched - (M_o - m_min) may only arrive once o has ended
// (each chunk takes its memory when it starts). The operations run back to
// back; the transfer waits.
void add_prefetch(TaskGraph& g, LemmaInstance& x, int gpu, int mem) {
  x.capacity = x.m_min + x.prefetched;
  for (const TimedNeed& o : x.ops) {
    x.compute.push_back(g.add(Task{TaskKind::Forward, gpu, -1, o.duration * kSpeed}));
    g.append_to_order(x.compute.back());
    g.add_memory(x.compute.back(), gpu, MemoryCategory::Activations, MemoryWhen::AtStart, o.memory);
    g.add_memory(x.compute.back(), gpu, MemoryCategory::Activations, MemoryWhen::AtFinish, -o.memory);
  }
  std::vector<double> cuts{0};
  for (const TimedNeed& o : x.ops)
    if (o.memory > x.m_min) cuts.push_back(x.prefetched - (o.memory - x.m_min));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  TaskId previous = static_cast<TaskId>(-1);
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    const double to = c + 1 < cuts.size() ? cuts[c + 1] : x.prefetched;
    std::vector<TaskId> deps;
    if (previous != static_cast<TaskId>(-1)) deps.push_back(previous);
    for (std::size_t n = 0; n < x.ops.size(); ++n)  // the operations this chunk's memory would squeeze
      if (x.ops[n].memory > x.m_min && x.prefetched - (x.ops[n].memory - x.m_min) <= cuts[c])
        deps.push_back(x.compute[n]);
    std::sort(deps.begin(), deps.end());
    previous = g.add(Task{TaskKind::Prefetch, mem, gpu, to - cuts[c]}, deps);
    g.add_memory(previous, gpu, MemoryCategory::Activations, MemoryWhen::AtStart, to - cuts[c]);
  }
}

TEST(MemorySavingExecution, LemmaOneIdleTimeEqualsTheSimulatedOne) {
  std::mt19937 rng(1);
  const int count = 200;
  std::vector<LemmaInstance> runs;
  std::vector<double> bandwidths;
  std::uniform_int_distribution<int> length(1, 12), micros(100'000, 3'000'000), memory(0, 10'000'000),
      m_min(0, 8'000'000), beta(1, 5);
  for (int k = 0; k < count; ++k) {
    LemmaInstance x;
    x.prefetch = k % 2 == 1;
    x.ops.resize(length(rng));
    for (TimedNeed& o : x.ops) o = {micros(rng) * 1e-6, static_cast<double>(memory(rng))};
    x.m_min = m_min(rng);
    x.beta = beta(rng) * 1e6;
    if (x.prefetch) {
      // The lemma's transfer lasts the whole sequence: at most β × busy bytes,
      // at least every operation's threshold.
      double need = 0;
      for (const TimedNeed& o : x.ops) need = std::max(need, o.memory - x.m_min);
      const double most = std::floor(x.beta * busy_time(x.ops) + 1e-6);
      if (need > most) continue;
      x.prefetched =
          std::uniform_int_distribution<long long>(static_cast<long long>(need), static_cast<long long>(most))(rng);
      if (x.prefetched == 0) continue;
    }
    runs.push_back(x);
    bandwidths.push_back(x.beta);
  }
  ASSERT_GT(runs.size(), 150u);
  Simulation sim(pairs_platform(bandwidths));
  const Platform& platform = sim.platform();
  TaskGraph graph(platform.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const int gpu = platform.find("gpu" + std::to_string(k)), mem = platform.find("mem" + std::to_string(k));
    (runs[k].prefetch ? add_prefetch : add_offload)(graph, runs[k], gpu, mem);
  }
  const Timeline timeline = sim.run(graph);
  ASSERT_TRUE(timeline.completed());
  const std::vector<DevicePeak> peaks = peak_memory(graph, timeline);
  int positive = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const LemmaInstance& x = runs[k];
    const std::string where = "instance " + std::to_string(k) + (x.prefetch ? " (prefetch)" : " (offload)");
    double end = timeline.finish[x.compute.back()];
    if (x.prefetch)  // the sequence ends when both the operations and the transfer have
      for (TaskId t = 0; t < graph.size(); ++t)
        if (graph.task(t).peer == platform.find("gpu" + std::to_string(k))) end = std::max(end, timeline.finish[t]);
    const double simulated = end - busy_time(x.ops);
    const double formula =
        x.prefetch ? prefetch_idle_time(x.ops, x.m_min, x.beta) : offload_idle_time(x.ops, x.m_min, x.beta);
    EXPECT_NEAR(simulated, formula, 1e-9) << where;
    EXPECT_LE(peaks[platform.find("gpu" + std::to_string(k))].total, x.capacity) << where;
    positive += formula > 1e-9;
  }
  EXPECT_GT(positive, 50);
}

}  // namespace
}  // namespace pipesim::memory_saving

namespace pipesim::memory_saving {
namespace {

// The shipped A100 box with host memory: GPU pairs cross their NVLinks only,
// each GPU reaches host memory over its own PCIe link, and GPT-2 XL's
// automatic placement uses the 8 GPUs, never host memory.
TEST(MemorySavingExecution, ShippedPcieHostPlatform) {
  Simulation sim(std::string(PIPESIM_SOURCE_DIR) + "/platforms/a100-8gpu-pcie-host.xml");
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 9);
  const int host = p.find("host-memory");
  ASSERT_EQ(host, 8);
  EXPECT_TRUE(is_host_memory(p.devices[host]));
  EXPECT_DOUBLE_EQ(p.devices[host].memory, 1024.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(p.devices[0].memory, 80.0 * (1ull << 30));
  EXPECT_EQ(p.path(0, 7).hops, 2);
  EXPECT_DOUBLE_EQ(p.path(0, 7).bandwidth, 300e9);
  EXPECT_EQ(p.path(3, host).hops, 1);
  EXPECT_DOUBLE_EQ(p.path(3, host).bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(p.path(host, 3).bandwidth, 25e9);
  Workload w = load_workload(std::string(PIPESIM_SOURCE_DIR) + "/workloads/examples/gpt2-xl-layers.yaml");
  const StagePlan plan = make_stage_plan(w, p);
  ASSERT_EQ(plan.stages.size(), 8u);
  for (int s = 0; s < 8; ++s) EXPECT_EQ(plan.stages[s].device, s);

  // Offloads of gpu0 and gpu1 and a gpu0 -> gpu1 transfer at once: three
  // different links, so each takes bytes / bandwidth + latency.
  TaskGraph g(p.size());
  const TaskId a = g.add(Task{TaskKind::Offload, 0, host, 25e9});
  const TaskId b = g.add(Task{TaskKind::Offload, 1, host, 25e9});
  const TaskId c = g.add(Task{TaskKind::Transfer, 0, 1, 300e9});
  const Timeline t = sim.run(g);
  EXPECT_NEAR(t.finish[a], 1 + 1e-6, 1e-9);
  EXPECT_NEAR(t.finish[b], 1 + 1e-6, 1e-9);
  EXPECT_NEAR(t.finish[c], 1 + 2e-6, 1e-9);
}

}  // namespace
}  // namespace pipesim::memory_saving
