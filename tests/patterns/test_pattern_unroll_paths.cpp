// The unroller's two paths to one graph: emitting instances in pattern time
// order (valid shifts, working memory per op) and Kahn's algorithm over all
// instances (the reference, for any shifts) give the same tasks in the same
// id order, with the same dependencies, device orders, memory and timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <tuple>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;
using unroll_internal::Method;
using unroll_internal::Unrolled;

auto fields(const Task& t) {
  return std::make_tuple(t.kind, t.device, t.peer, t.amount, t.stage, t.layer_first, t.layer_last, t.microbatch,
                         t.iteration, t.priority, t.resource, t.lane, t.share);
}
auto fields(const MemoryEffect& e) { return std::make_tuple(e.device, e.category, e.when, e.bytes); }
auto fields(const StaticMemory& s) { return std::make_tuple(s.device, s.category, s.bytes); }

// Every observable part of the two results is equal; `what` names the case.
void expect_same(const Unrolled& fast, const Unrolled& kahn, const std::string& what) {
  const TaskGraph& a = fast.unroll.graph;
  const TaskGraph& b = kahn.unroll.graph;
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_EQ(a.device_count(), b.device_count()) << what;
  for (TaskId t = 0; t < a.size(); ++t) {
    ASSERT_EQ(fields(a.task(t)), fields(b.task(t))) << what << ": task " << t;
    ASSERT_EQ(std::vector<TaskId>(a.deps_begin(t), a.deps_end(t)), std::vector<TaskId>(b.deps_begin(t), b.deps_end(t)))
        << what << ": dependencies of task " << t;
    const MemoryEffects x = a.memory_effects(t), y = b.memory_effects(t);
    ASSERT_EQ(x.size(), y.size()) << what << ": effects of task " << t;
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(fields(x.first[i]), fields(y.first[i])) << what << ": task " << t;
  }
  for (int d = 0; d < a.device_count(); ++d)
    EXPECT_EQ(a.device_order(d), b.device_order(d)) << what << ": device " << d;
  ASSERT_EQ(a.static_memory().size(), b.static_memory().size()) << what;
  for (std::size_t i = 0; i < a.static_memory().size(); ++i)
    EXPECT_EQ(fields(a.static_memory()[i]), fields(b.static_memory()[i])) << what;
  EXPECT_EQ(fast.unroll.duration, kahn.unroll.duration) << what;
  EXPECT_EQ(fast.unroll.op, kahn.unroll.op) << what;
  EXPECT_EQ(fast.unroll.period, kahn.unroll.period) << what;
}

// Both paths for each micro-batch count (fewer than the pipeline's depth,
// none, a split into iterations), untimed and timed. Returns whether the
// automatic path emitted in pattern time order every time.
bool compare_paths(const Pattern& p, const PatternTiming& t, int devices, const std::string& what) {
  bool pattern_order = true;
  for (int n : {0, 1, p.copies + 1, 7, 4 * devices + 3})
    for (int per_iteration : {0, 3})
      for (bool timed : {false, true}) {
        if (timed && per_iteration > 0) continue;  // unroll_pattern_timed runs one iteration
        const std::string name = what + ", n " + std::to_string(n) + ", per iteration " +
                                 std::to_string(per_iteration) + (timed ? ", timed" : "");
        const Unrolled fast = unroll_internal::unroll(p, t, devices, n, per_iteration, timed, Method::Automatic);
        const Unrolled kahn = unroll_internal::unroll(p, t, devices, n, per_iteration, timed, Method::Kahn);
        EXPECT_FALSE(kahn.pattern_order);
        pattern_order = pattern_order && fast.pattern_order;
        expect_same(fast, kahn, name);
        if (!timed) {
          EXPECT_TRUE(fast.unroll.duration.empty() && fast.unroll.op.empty() && fast.unroll.period.empty()) << name;
        }
      }
  return pattern_order;
}

// devices x layers_per_device layers, consecutive ones on one device,
// transfers of 1 ms + bytes at 1 GB/s. Uneven: costs and sizes vary by
// layer; else all alike (F = 1 s, B = 2 s, 0.1 s transfers).
struct Generated {
  Workload w;
  Allocation a;
  Platform platform;
};
Generated generated(int devices, int layers_per_device, bool uneven) {
  std::vector<double> f, b, act, weights;
  for (int l = 0; l < devices * layers_per_device; ++l) {
    f.push_back(uneven ? 1 + 0.25 * (l % 3) : 1);
    b.push_back(uneven ? 2 + 0.5 * (l % 2) : 2);
    act.push_back(uneven ? 1e8 * (1 + l % 4) : 1e8);
    weights.push_back(1e6 * (l + 1));
  }
  Generated g{chain_workload(f, b, act, 1e8, weights), {}, pattern_platform(devices, 0.001, 1e9)};
  for (int l = 0; l < devices * layers_per_device; ++l) g.a.push_back(l / layers_per_device);
  return g;
}

TEST(UnrollPaths, GeneratedPatternsGiveTheReferenceGraph) {
  for (int devices : {2, 3, 5})
    for (int per_device : {1, 2})
      for (BufferPolicy buffers : {BufferPolicy::Lifetime, BufferPolicy::Seed000})
        for (LinkModel links : {LinkModel::Platform, LinkModel::Pair}) {
          const Generated g = generated(devices, per_device, true);
          const Generated uniform = generated(devices, per_device, false);  // PipeDream's steady state fits it
          struct Case {
            std::string name;
            Pattern p;
            const Workload& w;
          };
          std::vector<Case> cases;
          for (int k = 1; k <= 3; ++k)
            cases.push_back({std::to_string(k) + "F" + std::to_string(k) + "B",
                             kfkb_pattern(k, g.a, g.w, g.platform, WeightPolicy::Stashing, links), g.w});
          for (int noam : {1, devices, devices + 2})
            cases.push_back({"pipedream noam " + std::to_string(noam),
                             pipedream_pattern(uniform.a, noam, uniform.w, uniform.platform), uniform.w});
          for (auto& [name, p, w] : cases) {
            p.buffers = buffers;
            const std::string what = name + " on " + std::to_string(devices) + " devices x " +
                                     std::to_string(per_device) + " layers, " + std::string(to_string(buffers)) +
                                     " buffers, " + std::string(to_string(p.links)) + " links";
            EXPECT_TRUE(compare_paths(p, pattern_timing(p, w, g.platform), devices, what)) << what;
          }
        }
}

TEST(UnrollPaths, RandomPatternsGiveTheReferenceGraph) {
  for (int seed = 0; seed < 40; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed), 0.001, 1e9);
    RandomCase rc = random_case(seed, platform);
    rc.pattern.buffers = seed % 2 ? BufferPolicy::Lifetime : BufferPolicy::Seed000;
    const std::string what = "random case " + std::to_string(seed);
    EXPECT_TRUE(compare_paths(rc.pattern, pattern_timing(rc.pattern, rc.workload, platform), platform.size(), what))
        << what;
  }
}

// 1F1B on two devices, transfers of 0.1 s on the one link both directions share.
struct OneFOneB {
  Platform platform = pattern_platform(2);
  Workload w = chain_workload({1, 1}, {2, 2}, {1e8, 1e8});
  Pattern p;
  OneFOneB() {
    p = make_pattern(2, 1, 3.5, {F(0, 0, 0), B(0, 0, 1.2), F(1, 1, 1.2), B(1, 1, 2.2)});
    p.buffers = BufferPolicy::Lifetime;
    assign_minimal_shifts(p, pattern_timing(p, w, platform));
  }
  PatternTiming timing() const { return pattern_timing(p, w, platform); }
};

// B1 one period ahead of the transfer that feeds it: pattern time order is
// no topological order any more, Kahn's algorithm delays B1 (no cycle).
TEST(UnrollPaths, ConsumersAheadOfTheirProducersTakeKahn) {
  OneFOneB x;
  x.p.ops[index_of(x.p, TaskKind::Backward, 0)].shift += 1;
  EXPECT_FALSE(compare_paths(x.p, x.timing(), 2, "B1 early"));
  const Unrolled u = unroll_internal::unroll(x.p, x.timing(), 2, 5, 0, false, Method::Automatic);
  EXPECT_FALSE(u.pattern_order);
  // Device 0's order is still pattern time order, no longer id order: a B1
  // comes before the F1 it waits for.
  const std::vector<TaskId>& order = u.unroll.graph.device_order(0);
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));
  for (std::size_t i = 1; i < order.size(); ++i)
    EXPECT_LT(u.unroll.graph.task(order[i - 1]).priority, u.unroll.graph.task(order[i]).priority);
}

// Shifts that make data go back in time: both paths give Kahn's error.
TEST(UnrollPaths, CircularDependenciesGiveTheSameError) {
  OneFOneB x;
  x.p.transfers[1].shift += 5;  // see UnrollPattern.RejectsShiftsThatGoBackInTime
  for (Method m : {Method::Automatic, Method::Kahn}) {
    try {
      unroll_internal::unroll(x.p, x.timing(), 2, 10, 0, false, m);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(),
                   "pattern unroll: the shifts make data go back in time (circular dependency); use "
                   "assign_minimal_shifts");
    }
  }
}

// Transfers holding several resources, listed out of id order: the
// forward's transfer {2, 0}, the backward's {3, 2, 0}. The same predecessor
// on two resources is one dependency; dependencies follow resource ids.
TEST(UnrollPaths, SeveralLinkResourcesPerTransfer) {
  OneFOneB x;
  PatternTiming t = x.timing();
  t.link_names = {"pair", "spare", "shared", "other"};
  t.transfer_links[x.p.transfers[0].from] = {2, 0};
  t.transfer_links[x.p.transfers[1].from] = {3, 2, 0};
  EXPECT_TRUE(compare_paths(x.p, t, 2, "several resources"));
  const int n = 4;
  const TaskGraph g = unroll_pattern(x.p, t, 2, n);
  int links = 0;
  for (TaskId id = 0; id < g.size(); ++id)
    if (g.task(id).kind == TaskKind::Transfer) links += static_cast<int>(g.deps_end(id) - g.deps_begin(id)) - 1;
  // All 2n transfers chained on resources 0 and 2 (2n - 1 links), the
  // backward's also on resource 3 (n - 1 more: a forward's transfer is
  // always between two of them).
  EXPECT_EQ(links, (2 * n - 1) + (n - 1));
}

// A resource listed twice makes a transfer wait for itself: Kahn's error on both paths.
TEST(UnrollPaths, AResourceListedTwiceIsACycle) {
  OneFOneB x;
  PatternTiming t = x.timing();
  t.transfer_links[x.p.transfers[1].from] = {0, 0};
  for (Method m : {Method::Automatic, Method::Kahn})
    EXPECT_THROW(unroll_internal::unroll(x.p, t, 2, 3, 0, false, m), std::invalid_argument);
}

// One op's periods a billion apart from the rest: the periods in between
// have no instance and cost nothing.
TEST(UnrollPaths, FarApartShiftsSkipEmptyPeriods) {
  OneFOneB x;
  x.p.ops[index_of(x.p, TaskKind::Forward, 0)].shift += kMaxShift - 10;
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_TRUE(compare_paths(x.p, x.timing(), 2, "far apart"));
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(20));
  const TimedUnroll u = unroll_pattern_timed(x.p, x.timing(), 2, 3);
  EXPECT_EQ(u.period.front(), -static_cast<long long>(x.p.ops[index_of(x.p, TaskKind::Forward, 0)].shift));
}

}  // namespace
}  // namespace pipesim
