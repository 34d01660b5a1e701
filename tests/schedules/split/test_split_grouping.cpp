// Seed 004 §V: grouping heterogeneous devices into q workers. Algorithm 2
// (local search), the brute-force optimum and §VI's sorting baseline, the
// table of their ratios to the optimum (docs/mobile.md), bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "schedules/split/split_grouping.hpp"
#include "tests/schedules/split/test_split_random.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::split {
namespace {

using testing::SplitRng;

// Uniform random devices: m resource types, speeds 1-10 Gflop/s forward and
// 0.3-1.5 times that backward, each type independently.
std::vector<Device> random_devices(SplitRng& rng, int n, int m) {
  std::vector<Device> devices;
  for (int v = 0; v < n; ++v) {
    Device d{"d" + std::to_string(v), {}};
    for (int j = 0; j < m; ++j) {
      const double forward = rng.uniform(1e9, 1e10);
      d.resources.push_back({"r" + std::to_string(j), forward, forward * rng.uniform(0.3, 1.5)});
    }
    devices.push_back(d);
  }
  return devices;
}

// §VI's three kinds of devices, picked at random. Speeds are illustrative
// (flop/s while training), not measured: a laptop with an i7 CPU and a GTX
// 1650, a laptop with an i5 CPU and an Iris Xe GPU, a Raspberry Pi 4B.
std::vector<Device> section6_devices(SplitRng& rng, int n) {
  const std::vector<Device> kinds = {
      {"i7-laptop", {{"cpu", 150e9, 100e9}, {"gpu", 2000e9, 1200e9}}},
      {"i5-laptop", {{"cpu", 100e9, 70e9}, {"gpu", 600e9, 300e9}}},
      {"raspberry-pi", {{"cpu", 10e9, 8e9}}},
  };
  std::vector<Device> devices;
  for (int v = 0; v < n; ++v) {
    devices.push_back(kinds[rng.integer(0, 2)]);
    devices.back().name += "-" + std::to_string(v);
  }
  return devices;
}

GroupingProblem problem(std::vector<Device> devices, int q) { return {std::move(devices), q, 1e12, 2e12}; }

// Every split of the devices into q non-empty groups, by restricted growth
// strings: independent of the subset dynamic program.
double enumerate_optimum(const GroupingProblem& pb) {
  const int n = static_cast<int>(pb.devices.size()), q = pb.workers;
  std::vector<int> label(n, 0);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, int)> rec = [&](int v, int used) {
    if (v == n) {
      if (used != q) return;
      std::vector<std::vector<int>> groups(q);
      for (int u = 0; u < n; ++u) groups[label[u]].push_back(u);
      best = std::min(best, grouping_period(pb, groups));
      return;
    }
    for (int g = 0; g <= std::min(used, q - 1); ++g) {
      label[v] = g;
      rec(v + 1, std::max(used, g + 1));
    }
  };
  rec(0, 0);
  return best;
}

void expect_valid(const Grouping& g, int n, int q) {
  ASSERT_EQ(static_cast<int>(g.groups.size()), q);
  std::vector<int> seen;
  for (const auto& group : g.groups) {
    EXPECT_FALSE(group.empty());
    seen.insert(seen.end(), group.begin(), group.end());
  }
  std::sort(seen.begin(), seen.end());
  for (int v = 0; v < n; ++v) EXPECT_EQ(seen[v], v);
}

TEST(SplitGrouping, BruteForceEqualsEnumeration) {
  SplitRng rng(4201);
  for (int trial = 0; trial < 60; ++trial) {
    const int q = rng.integer(1, 4);
    const int n = rng.integer(q, 8);
    const GroupingProblem pb = problem(random_devices(rng, n, rng.integer(1, 3)), q);
    const Grouping bf = group_devices(pb, GroupingMethod::BruteForce);
    expect_valid(bf, n, q);
    EXPECT_DOUBLE_EQ(bf.period, grouping_period(pb, bf.groups));
    EXPECT_NEAR(bf.period, enumerate_optimum(pb), 1e-15) << "trial " << trial;
    for (const GroupingMethod other : {GroupingMethod::LocalSearch, GroupingMethod::Sorting}) {
      const Grouping g = group_devices(pb, other);
      expect_valid(g, n, q);
      EXPECT_GE(g.period, bf.period * (1 - 1e-12));
    }
  }
}

// Where Algorithm 2 is optimal (docs/mobile.md proves both): n <= q + 1
// (its first q steps give the q best devices a worker each, then the worst
// device joins the weakest of them), and identical devices (it deals them
// round robin, ceil(n/q) at most per worker).
TEST(SplitGrouping, LocalSearchIsOptimalForAtMostQPlusOneDevicesAndForIdenticalDevices) {
  SplitRng rng(4202);
  for (int trial = 0; trial < 100; ++trial) {
    const int q = rng.integer(1, 6);
    const int n = q + rng.integer(0, 1);
    const GroupingProblem pb = problem(random_devices(rng, n, rng.integer(1, 3)), q);
    EXPECT_NEAR(group_devices(pb, GroupingMethod::LocalSearch).period,
                group_devices(pb, GroupingMethod::BruteForce).period, 1e-15)
        << "trial " << trial;
  }
  for (int n = 4; n <= 12; ++n) {
    const std::vector<Device> same(n, Device{"phone", {{"cpu", 2e9, 1e9}, {"npu", 8e9, 3e9}}});
    const GroupingProblem pb = problem(same, 4);
    const Grouping ls = group_devices(pb, GroupingMethod::LocalSearch);
    EXPECT_NEAR(ls.period, group_devices(pb, GroupingMethod::BruteForce).period, 1e-15) << "n " << n;
    for (const auto& group : ls.groups) EXPECT_LE(static_cast<int>(group.size()), (n + 3) / 4);
  }
}

// A small case where Algorithm 2 is not optimal: one resource type, equal
// ratios, so a worker's period is proportional to 1 / (sum of its speeds):
// speeds 5 4 3 3 3 on q = 2 workers. Algorithm 2 gives 5 and 4 a worker
// each, then a 3 to the slower (4+3 = 7), a 3 to the other (5+3 = 8), the
// last 3 to the slower again: {5,3} = 8, {4,3,3} = 10. Best: {5,4} = 9
// and {3,3,3} = 9.
TEST(SplitGrouping, LocalSearchCounterexample) {
  std::vector<Device> devices;
  for (const double s : {5, 4, 3, 3, 3}) devices.push_back({"d", {{"cpu", s * 1e9, s * 1e9}}});
  const GroupingProblem pb = problem(devices, 2);
  const Grouping ls = group_devices(pb, GroupingMethod::LocalSearch);
  const Grouping bf = group_devices(pb, GroupingMethod::BruteForce);
  // Period of speed s: forward 1e12 / (beta s), backward 2e12 / ((1 - beta) s),
  // balanced at beta = 1/3: 3e12 / s.
  EXPECT_DOUBLE_EQ(ls.period, 3e12 / 8e9);
  EXPECT_DOUBLE_EQ(bf.period, 3e12 / 9e9);
  EXPECT_EQ(ls.groups, (std::vector<std::vector<int>>{{0, 3}, {1, 2, 4}}));
}

struct Row {
  int n;
  double local_search = 0, sorting = 0, local_search_worst = 1, sorting_worst = 1;
  int local_search_optimal = 0;
};

// Average ratio to the optimum of Algorithm 2 and of sorting, q = 4,
// `trials` random instances per n. Printed by the test below; the tables in
// docs/mobile.md come from it.
std::vector<Row> ratio_table(const std::function<std::vector<Device>(SplitRng&, int)>& devices, std::uint64_t seed,
                             int trials) {
  SplitRng rng(seed);
  std::vector<Row> rows;
  for (int n = 4; n <= 12; ++n) {
    Row row{n};
    for (int t = 0; t < trials; ++t) {
      const GroupingProblem pb = problem(devices(rng, n), 4);
      const double best = group_devices(pb, GroupingMethod::BruteForce).period;
      const double ls = group_devices(pb, GroupingMethod::LocalSearch).period / best;
      const double so = group_devices(pb, GroupingMethod::Sorting).period / best;
      row.local_search += ls / trials;
      row.sorting += so / trials;
      row.local_search_worst = std::max(row.local_search_worst, ls);
      row.sorting_worst = std::max(row.sorting_worst, so);
      if (ls <= 1 + 1e-12) ++row.local_search_optimal;
    }
    rows.push_back(row);
  }
  return rows;
}

void print(const char* title, const std::vector<Row>& rows, int trials) {
  std::printf("%s (q = 4, %d instances per n)\n", title, trials);
  std::printf("| n | Algorithm 2: mean ratio | worst | optimal in | sorting: mean ratio | worst |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %d | %.4f | %.4f | %d/%d | %.4f | %.4f |\n", r.n, r.local_search, r.local_search_worst,
                r.local_search_optimal, trials, r.sorting, r.sorting_worst);
}

TEST(SplitGrouping, RatioToOptimumTable) {
  constexpr int kTrials = 50;
  const std::vector<Row> kinds = ratio_table(section6_devices, 4203, kTrials);
  const std::vector<Row> uniform =
      ratio_table([](SplitRng& rng, int n) { return random_devices(rng, n, 3); }, 4204, kTrials);
  print("Section VI device kinds (i7 laptop, i5 laptop, Raspberry Pi)", kinds, kTrials);
  print("Uniform random devices, m = 3 resource types", uniform, kTrials);
  for (const std::vector<Row>* table : {&kinds, &uniform})
    for (const Row& r : *table) {
      EXPECT_GE(r.local_search, 1 - 1e-12);
      if (r.n <= 5) {
        EXPECT_NEAR(r.local_search, 1, 1e-12) << "n " << r.n;
      }
      EXPECT_LE(r.local_search, r.sorting + 1e-12) << "n " << r.n;
    }
}

template <typename F>
std::string error_of(F f) {
  return pipesim::testing::error_message<std::invalid_argument>(f);
}

TEST(SplitGrouping, BadInputsThrowWithClearMessages) {
  const Device phone{"phone", {{"cpu", 1e9, 1e9}}};
  const auto run = [](const GroupingProblem& pb) { return [pb] { group_devices(pb, GroupingMethod::LocalSearch); }; };
  EXPECT_EQ(error_of(run(problem({phone, phone}, 3))),
            "grouping: 3 workers but only 2 devices (each worker needs at least one)");
  EXPECT_EQ(error_of(run(problem({phone}, 0))), "grouping: workers must be >= 1, got 0");
  EXPECT_EQ(error_of(run({{phone}, 1, 0, 1e9})), "grouping: forward_flops and backward_flops must be > 0, got 0");
  EXPECT_EQ(error_of(run(problem({{"pi", {{"cpu", 0, 0}}}}, 1))), "device 'pi': every speed is zero");
  EXPECT_EQ(error_of(run(problem({{"pi", {{"cpu", -1, 0}}}}, 1))),
            "device 'pi': resource 'cpu': speeds must be finite and >= 0, got -1");
  EXPECT_EQ(error_of(run(problem({{"pi", {{"cpu", 1, 1}, {"cpu", 1, 1}}}}, 1))),
            "device 'pi': resource 'cpu': listed twice");
  EXPECT_EQ(error_of([&] { group_devices(problem(std::vector<Device>(17, phone), 2), GroupingMethod::BruteForce); }),
            "grouping: brute force handles at most 16 devices, got 17");
  EXPECT_EQ(error_of([] { grouping_method("greedy"); }),
            "grouping: unknown method 'greedy' (expected local-search, brute-force or sorting)");
  EXPECT_EQ(grouping_method("sorting"), GroupingMethod::Sorting);
  EXPECT_EQ(grouping_method("local-search"), GroupingMethod::LocalSearch);
  // A device that runs only one pass is fine as long as its group can run
  // both: the phone's CPU takes the backward pass (2e12 flops, 2000 s), an
  // eighth of the NPU stick the forward one.
  const GroupingProblem mixed = problem({{"npu-stick", {{"npu", 4e9, 0}}}, phone}, 1);
  EXPECT_DOUBLE_EQ(group_devices(mixed, GroupingMethod::LocalSearch).period, 2000.0);
  EXPECT_EQ(grouping_period(mixed, {{0}}), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace pipesim::split
