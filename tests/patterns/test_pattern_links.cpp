// The pattern model follows the platform's links, as the simulation does,
// so that its exact period is the simulated one: a
// transfer holds every Shared link of its route (the two directions of a
// SPLITDUPLEX link are two), FatPipe links hold nothing, and seed 000's one
// resource per device pair stays as LinkModel::Pair. Each SimGrid case
// checks that the pattern's exact period (event graph) is the simulated one.
// One process per case (one SimGrid engine per process).
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cmath>

#include "analysis/metrics.hpp"
#include "patterns/link_resources.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

using namespace testing;

// p devices, each with its own link to one switch: every route between two
// devices has two hops, gpuI-link then gpuJ-link. SPLITDUPLEX: directions
// _UP (towards the switch) and _DOWN; FATPIPE: one link, no direction.
std::string star_platform(int p, const std::string& sharing) {
  return write_file("star-" + sharing + ".xml", testing::switch_star_platform_xml(p, sharing));
}

std::vector<std::string> names(LinkResources& r, int from, int to) {
  std::vector<std::string> out;
  for (int id : r.route(from, to)) out.push_back(r.names().at(id));
  return out;
}

// Exact period of the pattern = simulated steady state (1e-6), and the
// unrolled graph runs to completion. Returns the exact period.
double check_simulation(Simulation& sim, const Pattern& p, const Workload& w) {
  const Platform& platform = sim.platform();
  const PatternTiming t = pattern_timing(p, w, platform);
  EXPECT_EQ(find_overlap(p, t, platform), "");
  EXPECT_TRUE(validate_pattern(p, t, platform, w).empty());
  const double exact = exact_period(pattern_event_graph(p, t)).period;
  const int k = p.copies, first = 60, window = 120;
  const TaskGraph g = unroll_pattern(p, t, platform.size(), steady_state_microbatches(p, first, window));
  const Timeline tl = sim.run(g);
  EXPECT_TRUE(tl.completed()) << tl.deadlock;
  const double simulated = k * steady_time_per_microbatch(g, tl, 0, k * first, k * (first + window));
  EXPECT_NEAR(simulated / exact, 1, 1e-6) << "exact " << exact << " simulated " << simulated;
  return exact;
}

// Two layers on two devices; each transfer (1.5 GB at 1 GB/s) takes 1.5 s
// against 2 s of work per device: both directions fit in a period of 2 only
// if they run at once.
Workload opposite_workload() { return chain_workload({1, 1}, {1, 1}, {1.5e9, 0}, 0); }

TEST(PatternLinks, StarRoutesHoldBothHops) {
  Simulation sim(star_platform(3, "SPLITDUPLEX"));
  LinkResources links(sim.platform(), LinkModel::Platform);
  EXPECT_EQ(names(links, 0, 1), (std::vector<std::string>{"gpu0-link_UP", "gpu1-link_DOWN"}));
  EXPECT_EQ(names(links, 1, 0), (std::vector<std::string>{"gpu1-link_UP", "gpu0-link_DOWN"}));
  EXPECT_TRUE(links.share(0, 1, 0, 2));   // gpu0-link_UP
  EXPECT_TRUE(links.share(0, 2, 1, 2));   // gpu2-link_DOWN
  EXPECT_FALSE(links.share(0, 1, 1, 0));  // opposite directions
  EXPECT_FALSE(links.share(0, 1, 2, 0));
  LinkResources pair(sim.platform(), LinkModel::Pair);
  EXPECT_EQ(names(pair, 1, 0), (std::vector<std::string>{"gpu0-gpu1"}));
  EXPECT_TRUE(pair.share(0, 1, 1, 0));
  EXPECT_FALSE(pair.share(0, 1, 0, 2));
}

TEST(PatternLinks, FatPipeHoldsNothing) {
  Simulation sim(star_platform(3, "FATPIPE"));
  LinkResources links(sim.platform(), LinkModel::Platform);
  EXPECT_TRUE(links.route(0, 1).empty());
  EXPECT_FALSE(links.share(0, 1, 0, 2));
}

// A hand-filled path table has no links: the unordered pair, as in seed 000.
TEST(PatternLinks, HandFilledPathsHoldThePair) {
  const Platform platform = pattern_platform(3);
  LinkResources links(platform, LinkModel::Platform);
  EXPECT_EQ(names(links, 2, 1), (std::vector<std::string>{"gpu1-gpu2"}));
  EXPECT_TRUE(links.share(1, 2, 2, 1));
}

// Opposite directions overlap on a SPLITDUPLEX link: the 1F1B pattern
// reaches the devices' bound 2, which SimGrid reaches too; under seed 000's
// pair the same pattern overlaps itself, and the pair's pattern needs 3.
TEST(PatternLinks, OppositeDirectionsOverlapOnSplitDuplex) {
  Simulation sim(complete_platform(2));
  const Platform& platform = sim.platform();
  const Workload w = opposite_workload();
  EXPECT_DOUBLE_EQ(pattern_period_bound({0, 1}, w, platform), 2);
  EXPECT_DOUBLE_EQ(pattern_period_bound({0, 1}, w, platform, 1, LinkModel::Pair), 3);
  Pattern duplex = one_f_one_b_pattern({0, 1}, w, platform);
  EXPECT_NEAR(check_simulation(sim, duplex, w), 2, 1e-9);
  const PatternTiming t = pattern_timing(duplex, w, platform);
  EXPECT_EQ(t.link_names, (std::vector<std::string>{"l0-1_UP", "l0-1_DOWN"}));
  Pattern as_pair = duplex;
  as_pair.links = LinkModel::Pair;
  EXPECT_EQ(find_overlap(as_pair, pattern_timing(as_pair, w, platform), platform).rfind("on the link gpu0-gpu1, ", 0),
            0u);
}

// Seed 000's model on the same platform: the unrolled graph serializes both
// directions, so the simulation follows it too.
TEST(PatternLinks, PairModelIsSimulatedAsSuch) {
  Simulation sim(complete_platform(2));
  const Workload w = opposite_workload();
  const Pattern pair = one_f_one_b_pattern({0, 1}, w, sim.platform(), WeightPolicy::TwoBW, LinkModel::Pair);
  EXPECT_EQ(pair.links, LinkModel::Pair);
  EXPECT_NEAR(check_simulation(sim, pair, w), 3, 1e-9);
}

// Four layers on a star of three devices, the last layer back on gpu0:
// F1 -> F2 goes gpu0 -> gpu1 and B4 -> B3 gpu0 -> gpu2, both over
// gpu0-link_UP (two hops each). The link-bound kFkB pattern (k = 1, 2) is
// simulated as its event graph says (one link-order cycle per Shared link).
class MultiHop : public ::testing::TestWithParam<int> {};

TEST_P(MultiHop, RoutesHoldEveryLink) {
  const int k = GetParam();
  Simulation sim(star_platform(3, "SPLITDUPLEX"));
  const Platform& platform = sim.platform();
  const Workload w = chain_workload({0.2, 0.2, 0.2, 0.2}, {0.3, 0.3, 0.3, 0.3}, {0.6e9, 0.6e9, 0.6e9, 0}, 0);
  const Allocation a{0, 1, 2, 0};
  // gpu0-link_UP carries F1's output and B4's: 1.2 s; every device 1 s or less.
  EXPECT_NEAR(pattern_period_bound(a, w, platform, k), 1.2 * k, 1e-9);
  const Pattern p = kfkb_pattern(k, a, w, platform);
  const PatternTiming t = pattern_timing(p, w, platform);
  EXPECT_EQ(t.link_names.size(), 6u);  // UP and DOWN of three links
  for (const PatternTransfer& tr : p.transfers) EXPECT_EQ(t.transfer_links[tr.from].size(), 2u);
  EXPECT_GE(check_simulation(sim, p, w), 1.2 * k * (1 - 1e-9));
}

INSTANTIATE_TEST_SUITE_P(PatternLinks, MultiHop, ::testing::Values(1, 2));

// The ILP on the same star: with the allocation fixed (~z from the routes'
// links) and free (~z from the device relations that share a link on a
// star: same route, same source, same target). Its answer is valid, at
// least the load bound, and simulated at its period.
class IlpOnStar : public ::testing::TestWithParam<bool> {};

TEST_P(IlpOnStar, AnswerIsSimulatedAtItsPeriod) {
  Simulation sim(star_platform(3, "SPLITDUPLEX"));
  const Workload w = chain_workload({0.2, 0.2, 0.2, 0.2}, {0.3, 0.3, 0.3, 0.3}, {0.6e9, 0.6e9, 0.6e9, 0}, 0);
  IlpOptions o;
  if (GetParam()) o.allocation = Allocation{0, 1, 2, 0};
  o.threads = 1;
  o.time_limit = 60;
  const IlpResult r = solve_optimal_pattern(w, sim.platform(), o);
  ASSERT_TRUE(r.pattern) << r.message;
  EXPECT_EQ(r.pattern->links, LinkModel::Platform);
  if (GetParam()) {
    EXPECT_GE(r.period, 1.2 * (1 - 1e-9));  // gpu0-link_UP's load
  }
  EXPECT_NEAR(check_simulation(sim, *r.pattern, w) / r.period, 1, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(PatternLinks, IlpOnStar, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "fixed" : "free"; });

// FatPipe links give every flow their whole bandwidth: transfers hold
// nothing, only the devices bound the period, and SimGrid agrees.
TEST(PatternLinks, FatPipeTransfersOverlapFreely) {
  Simulation sim(star_platform(3, "FATPIPE"));
  const Platform& platform = sim.platform();
  const Workload w = chain_workload({0.2, 0.2, 0.2, 0.2}, {0.3, 0.3, 0.3, 0.3}, {0.6e9, 0.6e9, 0.6e9, 0}, 0);
  const Allocation a{0, 1, 2, 0};
  EXPECT_NEAR(pattern_period_bound(a, w, platform), 1.0, 1e-9);  // gpu0: F1, B1, F4, B4
  const Pattern p = one_f_one_b_pattern(a, w, platform);
  const PatternTiming t = pattern_timing(p, w, platform);
  EXPECT_TRUE(t.link_names.empty());
  EXPECT_NEAR(check_simulation(sim, p, w), 1.0, 1e-9);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// Issue 10's example: ResNet-18 (PipeDream's profile) on
// platforms/complete-4.xml (SPLITDUPLEX links) with PipeDream's partition
// 0-3|4-6|7-13|14-25. The issue's own pattern (88.9 ms, 4 micro-batches in
// flight, 12 GiB) is PipeDream's steady state with NOAM 4, which repeats
// every 3 micro-batches (a 3-copy pattern: PipeDream.CycleOfThreeMicroBatches*).
// This is a 1-periodic equivalent: the
// 1F1B pattern on that allocation reaches the device bound 71.76 ms with
// transfers that overlap in opposite directions of gpu2-gpu3; it is valid
// on the platform's links and simulated at its exact period, and seed
// 000's pair rejects exactly those overlaps.
TEST(PatternLinks, ResNet18OppositeOverlapsAreValid) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  Simulation sim(root + "platforms/complete-4.xml");
  const Platform& platform = sim.platform();
  ImportOptions io;
  io.microbatches = 200;
  const Workload w = import_pipedream(root + "workloads/profiles/resnet18/graph.txt", io).workload;
  const Allocation a = parse_allocation("0,0,0,0,1,1,1,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3", 26, 4);
  const Pattern p = one_f_one_b_pattern(a, w, platform);
  EXPECT_NEAR(check_simulation(sim, p, w), 0.071763, 1e-9);

  Pattern pair = p;
  pair.links = LinkModel::Pair;
  std::vector<std::string> overlaps;
  for (const Violation& v : validate_pattern(pair, pattern_timing(pair, w, platform), platform, w)) {
    EXPECT_EQ(v.kind, "overlap") << v.message;
    overlaps.push_back(v.message);
  }
  ASSERT_FALSE(overlaps.empty());
  for (const std::string& o : overlaps)  // a forward's activation against a backward's gradient
    EXPECT_TRUE(o.find("the transfer after F") != std::string::npos &&
                o.find("the transfer after B") != std::string::npos)
        << o;
  EXPECT_EQ(overlaps[0].rfind("link gpu2-gpu3: the transfer after B15 ", 0), 0u) << overlaps[0];
}

}  // namespace
}  // namespace pipesim
