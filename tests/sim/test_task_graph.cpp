// The task graph's compact store (shapes) gives back exactly what was added,
// and the memory event stream orders effects as documented, window or not.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/memory_events.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload_yaml.hpp"

using namespace pipesim;

namespace {

constexpr auto Start = MemoryWhen::AtStart;
constexpr auto Finish = MemoryWhen::AtFinish;

Task random_task(std::mt19937& rng, int devices) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Task t;
  t.kind = pick(2) ? TaskKind::Forward : TaskKind::Transfer;
  t.device = pick(devices);
  t.peer = t.kind == TaskKind::Transfer ? pick(devices) : -1;
  t.amount = 1e9 * (1 + pick(3));
  t.stage = pick(4);
  t.layer_first = t.stage;
  t.layer_last = t.stage + pick(2);
  t.microbatch = pick(1000);
  t.iteration = pick(2);
  t.priority = pick(7) * 0.5;
  t.lane = t.kind == TaskKind::Transfer ? 0 : pick(2);
  t.share = pick(2) ? 1.0 : 0.5;
  return t;
}

bool same_task(const Task& a, const Task& b) {
  return std::tie(a.kind, a.device, a.peer, a.amount, a.stage, a.layer_first, a.layer_last, a.microbatch, a.iteration,
                  a.priority, a.resource, a.lane,
                  a.share) == std::tie(b.kind, b.device, b.peer, b.amount, b.stage, b.layer_first, b.layer_last,
                                       b.microbatch, b.iteration, b.priority, b.resource, b.lane, b.share);
}

struct Added {
  Task task;
  std::vector<MemoryEffect> effects;
};

// A random graph, its tasks' effects added in random task order (not only
// right after the task), and what was added, for comparison.
std::pair<TaskGraph, std::vector<Added>> random_graph(unsigned seed, int tasks, int devices) {
  std::mt19937 rng(seed);
  TaskGraph g(devices);
  std::vector<Added> added;
  for (int i = 0; i < tasks; ++i) {
    const Task t = random_task(rng, devices);
    std::vector<TaskId> deps;
    if (i > 0 && rng() % 2) deps.push_back(static_cast<TaskId>(rng() % static_cast<unsigned>(i)));
    g.add(t, deps);
    added.push_back({t, {}});
    for (int e = 0, n = static_cast<int>(rng() % 4); e < n; ++e) {
      const TaskId target = static_cast<TaskId>(rng() % added.size());  // often an earlier task
      const MemoryEffect effect{static_cast<int>(rng() % static_cast<unsigned>(devices)),
                                static_cast<MemoryCategory>(rng() % kMemoryCategoryCount), rng() % 2 ? Start : Finish,
                                (rng() % 2 ? 1.0 : -1.0) * (1 + rng() % 3) * 1e6};
      g.add_memory(target, effect.device, effect.category, effect.when, effect.bytes);
      added[target].effects.push_back(effect);
    }
  }
  return {std::move(g), std::move(added)};
}

void expect_same(const TaskGraph& g, const std::vector<Added>& added) {
  ASSERT_EQ(g.size(), added.size());
  for (TaskId t = 0; t < g.size(); ++t) {
    EXPECT_TRUE(same_task(g.task(t), added[t].task)) << "task " << t;
    const MemoryEffects effects = g.memory_effects(t);
    ASSERT_EQ(effects.size(), added[t].effects.size()) << "task " << t;
    for (std::size_t i = 0; i < effects.size(); ++i) {
      const MemoryEffect &a = effects.first[i], &b = added[t].effects[i];
      EXPECT_EQ(std::tie(a.device, a.category, a.when, a.bytes), std::tie(b.device, b.category, b.when, b.bytes));
    }
  }
}

}  // namespace

TEST(TaskGraphShapes, GivesBackEveryTaskAndItsEffectsInTheOrderAdded) {
  const auto [g, added] = random_graph(7, 3000, 3);
  expect_same(g, added);
}

TEST(TaskGraphShapes, APipelineHasAFewShapesPerStageWhateverItsMicroBatches) {
  for (const int M : {10, 1000}) {
    TaskGraph g(2);
    for (int m = 0; m < M; ++m) {
      Task f;
      f.device = 0;
      f.stage = 0;
      f.amount = 1e12;
      f.microbatch = m;
      f.priority = m;
      const TaskId id = g.add(f);
      g.add_memory(id, 0, MemoryCategory::Activations, Start, 1e9);
      Task x = f;
      x.kind = TaskKind::Transfer;
      x.peer = 1;
      const TaskId tr = g.add(x, {id});
      g.add_memory(tr, 1, MemoryCategory::CommBuffers, Start, 1e6);
      g.add_memory(tr, 0, MemoryCategory::CommBuffers, Finish, -1e6);
    }
    // Forward: bare, then with its effect; transfer: bare, one effect, two.
    EXPECT_EQ(g.shape_count(), 5u) << "M = " << M;
    EXPECT_EQ(g.task(2 * (M - 1)).microbatch, M - 1);
    EXPECT_EQ(g.memory_effects(2 * (M - 1) + 1).size(), 2u);
  }
}

TEST(TaskGraphShapes, ACopyIsIndependentOfItsOriginal) {
  auto [g, added] = random_graph(11, 200, 2);
  TaskGraph copy = g;
  Task t;
  t.device = 1;
  t.amount = 123;
  const TaskId id = copy.add(t);
  copy.add_memory(id, 1, MemoryCategory::Optimizer, Finish, 5);
  copy.add_memory(0, 0, MemoryCategory::Optimizer, Finish, 9);
  expect_same(g, added);  // the original did not move
  added.push_back({t, {{1, MemoryCategory::Optimizer, Finish, 5}}});
  added[0].effects.push_back({0, MemoryCategory::Optimizer, Finish, 9});
  expect_same(copy, added);
}

// Re-timing in place (the plan's bounds lengthen passes by their TP
// collectives): every task gets its new amount, the rest unchanged, and the
// shapes grow by at most the shapes whose amount changed.
TEST(TaskGraphShapes, SetAmountsRetimesEveryTaskAndKeepsTheRest) {
  auto [g, added] = random_graph(12, 300, 3);
  const std::size_t shapes = g.shape_count();
  const auto longer = [](const Task& t) { return t.kind == TaskKind::Forward ? t.amount + 1e6 * t.stage : t.amount; };
  g.set_amounts(longer);
  for (auto& a : added) a.task.amount = longer(a.task);
  expect_same(g, added);
  EXPECT_LE(g.shape_count(), 2 * shapes);
}

TEST(TaskGraphShapes, EffectsOfZeroBytesAreDropped) {
  TaskGraph g(1);
  Task t;
  t.device = 0;
  g.add(t);
  g.add_memory(0, 0, MemoryCategory::Weights, Start, 0);
  EXPECT_TRUE(g.memory_effects(0).empty());
  EXPECT_TRUE(g.memory_effects().empty());
}

namespace {

struct Seen {
  double time;
  TaskId task;
  MemoryEffect effect;
};

std::vector<Seen> stream(const TaskGraph& g, const std::vector<double>& start, const std::vector<double>& finish,
                         std::size_t min_window) {
  std::vector<Seen> seen;
  for_each_memory_event(
      g, start, finish,
      [&](double time, TaskId task, const MemoryEffect& e) {
        seen.push_back({time, task, e});
      },
      min_window);
  return seen;
}

}  // namespace

// The documented order, by brute force: (time, frees first, effects at
// finish first, task, order added), over effects whose time is finite.
TEST(MemoryEvents, FollowTheDocumentedOrderInOneWindowOrMany) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const auto [g, added] = random_graph(seed, 5000, 4);
    std::mt19937 rng(seed + 100);
    std::vector<double> start(g.size()), finish(g.size());
    for (TaskId t = 0; t < g.size(); ++t) {
      start[t] = static_cast<double>(rng() % 50);  // few distinct instants: many ties
      finish[t] = start[t] + static_cast<double>(rng() % 3);
      if (rng() % 50 == 0) finish[t] = std::nan("");  // never finished
    }
    struct Key {
      double time;
      bool alloc;
      bool at_start;
      TaskId task;
      std::size_t index;
    };
    std::vector<Key> keys;
    for (TaskId t = 0; t < g.size(); ++t)
      for (std::size_t i = 0; i < added[t].effects.size(); ++i) {
        const MemoryEffect& e = added[t].effects[i];
        const bool at_start = e.when == Start;
        const double time = at_start ? start[t] : finish[t];
        if (std::isfinite(time)) keys.push_back({time, e.bytes > 0, at_start, t, i});
      }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      return std::tie(a.time, a.alloc, a.at_start, a.task, a.index) <
             std::tie(b.time, b.alloc, b.at_start, b.task, b.index);
    });
    for (const std::size_t min_window : {std::size_t{1} << 20, std::size_t{100}, std::size_t{1}}) {
      const std::vector<Seen> seen = stream(g, start, finish, min_window);
      ASSERT_EQ(seen.size(), keys.size()) << "seed " << seed << ", window " << min_window;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const MemoryEffect& want = added[keys[i].task].effects[keys[i].index];
        ASSERT_EQ(seen[i].time, keys[i].time) << i;
        ASSERT_EQ(seen[i].task, keys[i].task) << i;
        ASSERT_EQ(std::tie(seen[i].effect.device, seen[i].effect.category, seen[i].effect.when, seen[i].effect.bytes),
                  std::tie(want.device, want.category, want.when, want.bytes))
            << i;
      }
    }
  }
}

// Windows are cut between bins of time, never inside an instant: with all
// events at one instant, one window holds them all.
TEST(MemoryEvents, OneInstantIsNeverSplitAcrossWindows) {
  const auto [g, added] = random_graph(5, 2000, 2);
  const std::vector<double> zero(g.size(), 0.0);
  const std::vector<Seen> windowed = stream(g, zero, zero, 1);
  const std::vector<Seen> whole = stream(g, zero, zero, std::size_t{1} << 20);
  ASSERT_EQ(windowed.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(windowed[i].task, whole[i].task);
    EXPECT_EQ(windowed[i].effect.when, whole[i].effect.when);
  }
  // Frees first at the instant.
  const auto first_alloc = std::find_if(whole.begin(), whole.end(), [](const Seen& s) { return s.effect.bytes > 0; });
  EXPECT_TRUE(std::all_of(first_alloc, whole.end(), [](const Seen& s) { return s.effect.bytes > 0; }));
}

// What keeps a run small: the shipped generators' shape tables do not grow
// with the micro-batches (gpt2-xl on 8 GPUs, 16 against 160 micro-batches).
TEST(TaskGraphShapes, GeneratorsShapesDoNotGrowWithMicroBatches) {
  const std::string dir = PIPESIM_SOURCE_DIR;
  Simulation sim(dir + "/platforms/nvswitch-8gpu.xml");
  for (const char* schedule : {"1f1b", "gpipe", "kfkb", "pipedream", "interleaved-1f1b", "zb-h1", "dualpipev"}) {
    std::size_t shapes[2] = {0, 0}, tasks[2] = {0, 0};
    for (const int i : {0, 1}) {
      Workload w = load_workload(dir + "/workloads/examples/gpt2-xl-layers.yaml");
      w.schedule = schedule;
      w.schedule_params.clear();
      w.microbatches = i == 0 ? 16 : 160;
      const GeneratedSchedule g = generate(w, sim.platform());
      shapes[i] = g.graph.shape_count();
      tasks[i] = g.graph.size();
    }
    EXPECT_GT(tasks[1], 9 * tasks[0]) << schedule;
    EXPECT_EQ(shapes[1], shapes[0]) << schedule;
  }
}
