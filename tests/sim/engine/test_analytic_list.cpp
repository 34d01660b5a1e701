// The analytic engine's fast path (sim/engine/analytic_list.hpp): its two
// longest-path passes, the id-order sweep and the queue fallback, give the
// same outcome to the bit; the fallback is taken where an order does not
// follow task ids, and still equals SimGrid.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "sim/engine/analytic_list.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/sim/engine/analytic_test_support.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using testing::compute;
using testing::transfer;

// Four 1 Tf hosts around a router, each behind one Shared link: a transfer
// crosses two Shared links, so two transfers may conflict on both at once.
std::string star_platform() {
  return testing::write_file("star-shared.xml", testing::host_links_platform_xml(4, "SHARED", "1GBps", "1us"));
}

ListPass pass_taken(const TaskGraph& g, const Platform& platform, ListPass pass = ListPass::Auto) {
  ListPass taken = ListPass::Auto;
  list_schedule(g, platform, AnalyticSettings{}, pass, &taken);
  return taken;
}

// Times as bit patterns: NaN (a task that never ran) equals NaN.
std::vector<std::uint64_t> bits(const std::vector<double>& times) {
  std::vector<std::uint64_t> out(times.size());
  if (!times.empty()) std::memcpy(out.data(), times.data(), times.size() * sizeof(double));
  return out;
}

// The same outcome to the bit: refusal, or every time, route row and the makespan.
void expect_identical(const AnalyticOutcome& a, const AnalyticOutcome& b, const std::string& what) {
  EXPECT_EQ(a.refusal, b.refusal) << what;
  ASSERT_EQ(a.timeline.has_value(), b.timeline.has_value()) << what;
  if (!a.timeline) return;
  EXPECT_EQ(bits(a.timeline->start), bits(b.timeline->start)) << what;
  EXPECT_EQ(bits(a.timeline->finish), bits(b.timeline->finish)) << what;
  EXPECT_EQ(bits({a.timeline->makespan}), bits({b.timeline->makespan})) << what;
  EXPECT_EQ(a.timeline->route_offsets, b.timeline->route_offsets) << what;
  EXPECT_EQ(a.timeline->route_links, b.timeline->route_links) << what;
  EXPECT_EQ(a.timeline->blocked, b.timeline->blocked) << what;
}

// gpu0 runs b before a although a has the smaller id: the queue pass.
TEST(AnalyticList, AnOrderAgainstTaskIdsTakesTheQueuePassAndEqualsSimGrid) {
  Simulation sim(testing::complete_platform(2, "1GBps", "1us"));
  TaskGraph g(2);
  const TaskId a = g.add(compute(0, 1e12));
  const TaskId b = g.add(compute(0, 2e12));
  const TaskId x = g.add(transfer(0, 1, 1e9), {a});
  const TaskId c = g.add(compute(1, 1e12), {x});
  g.append_to_order(b);
  g.append_to_order(a);
  g.append_to_order(c);
  EXPECT_EQ(pass_taken(g, sim.platform()), ListPass::Queue);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_EQ(out.timeline->start[b], 0.0);
  EXPECT_EQ(out.timeline->start[a], 2.0);
  EXPECT_EQ(out.timeline->start[x], 3.0);
  EXPECT_DOUBLE_EQ(out.timeline->start[c], 4.000001);
  testing::expect_same_timeline(*out.timeline, testing::simgrid_timeline(sim, g));

  // The same graph with gpu0's order following ids takes the id-order pass.
  TaskGraph ordered(2);
  ordered.add(compute(0, 1e12));
  ordered.add(compute(0, 2e12));
  ordered.add(transfer(0, 1, 1e9), {0});
  ordered.add(compute(1, 1e12), {2});
  for (const TaskId t : {0, 1, 3}) ordered.append_to_order(t);
  EXPECT_EQ(pass_taken(ordered, sim.platform()), ListPass::IdOrder);
  const AnalyticOutcome id_order = sim.run_analytic(ordered);
  ASSERT_TRUE(id_order.timeline) << id_order.refusal;
  EXPECT_EQ(id_order.timeline->start, (std::vector<double>{0, 1, 1, out.timeline->start[c] - 2}));
  testing::expect_same_timeline(*id_order.timeline, testing::simgrid_timeline(sim, ordered));
}

// A transfer in a device order (and a compute task in none): the id-order
// pass gives up where it meets the unordered compute task, and the queue
// pass decides, as it always did.
TEST(AnalyticList, ATransferInADeviceOrderFallsBackToTheQueuePass) {
  Simulation sim(testing::complete_platform(2, "1GBps", "0s"));
  TaskGraph g(2);
  const TaskId a = g.add(compute(0, 1e12));
  const TaskId x = g.add(transfer(0, 1, 1e9), {a});
  g.add(compute(1, 1e12), {x});
  g.append_to_order(a);
  g.append_to_order(x);
  EXPECT_EQ(pass_taken(g, sim.platform()), ListPass::Queue);
  const std::optional<AnalyticOutcome> queue = list_schedule(g, sim.platform(), {}, ListPass::Queue);
  const std::optional<AnalyticOutcome> fastest = list_schedule(g, sim.platform(), {});
  ASSERT_TRUE(queue && fastest);
  expect_identical(*fastest, *queue, "transfer in an order");
  ASSERT_TRUE(fastest->timeline);
  EXPECT_EQ(fastest->timeline->blocked, (std::vector<TaskId>{2}));
}

// Random graphs whose every device runs its compute tasks in id order: the
// id-order pass and the queue pass give the same timeline or the same
// refusal, naming the same transfers, link and time, whatever order each
// pass meets the transfers in.
void id_order_equals_queue(const std::string& platform_file, int devices, unsigned seed, int& exact, int& refused) {
  Simulation sim(platform_file);
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int k = 0; k < 300; ++k) {
    TaskGraph g(devices);
    const int n = 8 + pick(60);
    for (int i = 0; i < n; ++i) {
      std::vector<TaskId> deps;
      for (int d = pick(4); d > 0 && i > 0; --d) {
        const TaskId dep = static_cast<TaskId>(i - 1 - pick(std::min(i, 12)));  // mostly recent: long chains
        if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
      }
      Task t;
      if (pick(2) == 0) {
        const int from = pick(devices);
        t = transfer(from, pick(6) == 0 ? from : (from + 1 + pick(devices - 1)) % devices,
                     pick(6) == 0 ? 0 : 2.5e8 * (1 + pick(4)));
      } else {
        t = compute(pick(devices), pick(8) == 0 ? 0 : 2.5e11 * (1 + pick(6)));
      }
      t.microbatch = i;
      const TaskId id = g.add(t, deps);
      if (!is_transfer(t.kind)) g.append_to_order(id);
    }
    const std::string what = "seed " + std::to_string(seed) + " graph " + std::to_string(k);
    ListPass taken = ListPass::Auto, queue_taken = ListPass::Auto;
    const std::optional<AnalyticOutcome> fastest = list_schedule(g, sim.platform(), {}, ListPass::Auto, &taken);
    const std::optional<AnalyticOutcome> queue = list_schedule(g, sim.platform(), {}, ListPass::Queue, &queue_taken);
    ASSERT_TRUE(fastest && queue) << what;
    EXPECT_EQ(taken, ListPass::IdOrder) << what;
    EXPECT_EQ(queue_taken, ListPass::Queue) << what;
    expect_identical(*fastest, *queue, what);
    (fastest->timeline ? exact : refused) += 1;
  }
}

// Each test loads one platform (one SimGrid platform per process).
TEST(AnalyticList, IdOrderPassEqualsTheQueuePassOnSplitDuplexPairs) {
  int exact = 0, refused = 0;
  id_order_equals_queue(testing::complete_platform(3, "1GBps", "1us"), 3, 11, exact, refused);
  EXPECT_GE(exact, 50);  // both outcomes well represented
  EXPECT_GE(refused, 50);
}

TEST(AnalyticList, IdOrderPassEqualsTheQueuePassWithoutLatency) {
  int exact = 0, refused = 0;
  id_order_equals_queue(testing::complete_platform(4, "1GBps", "0s"), 4, 12, exact, refused);
  EXPECT_GE(exact, 50);
  EXPECT_GE(refused, 50);
}

// Two Shared links per transfer: conflicts on both at once, at equal times.
TEST(AnalyticList, IdOrderPassEqualsTheQueuePassOnAStarOfSharedLinks) {
  int exact = 0, refused = 0;
  id_order_equals_queue(star_platform(), 4, 13, exact, refused);
  EXPECT_GE(exact, 10);
  EXPECT_GE(refused, 150);
}

// check_task_amounts works per shape but names the first bad task by id,
// whichever shape was made first.
TEST(AnalyticList, BadAmountsNameTheFirstBadTaskById) {
  Simulation sim(testing::complete_platform(2));
  TaskGraph g(2);
  Task shared = compute(1, 1e12);
  shared.share = 0;
  const TaskId bad_share = g.add(shared);
  g.add(compute(0, std::numeric_limits<double>::infinity()));
  g.add_memory(bad_share, 1, MemoryCategory::Activations, MemoryWhen::AtStart, 8);  // a later shape id
  EXPECT_EQ(testing::error_message<InputError>([&] { sim.run_analytic(g); }),
            "task graph: forward (dev 1): expected lane >= 0 and share in (0, 1]");
}

}  // namespace
}  // namespace pipesim
