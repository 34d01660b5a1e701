// The exact min-max partition of eq. 1 for workers that differ (stage k on
// worker k), which the `split` schedule uses on heterogeneous devices:
// against the enumeration of every cut, and equal to the homogeneous DP
// when the workers are identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "schedules/split/split_model.hpp"
#include "schedules/split/split_partition.hpp"
#include "tests/schedules/split/test_split_random.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::split {
namespace {

using testing::SplitRng;
constexpr double kInf = std::numeric_limits<double>::infinity();

// One worker of the chain `forward` (seconds on a unit resource): m
// resources of random speeds, forward/backward ratios differing.
WorkerProfile random_worker(SplitRng& rng, const std::vector<double>& forward, const std::vector<double>& bytes,
                            double bandwidth) {
  TimeTable table;
  Device worker{"w", {}};
  const int m = rng.integer(1, 3);
  for (int j = 0; j < m; ++j) {
    const std::string type = "r" + std::to_string(j);
    const double speed = rng.uniform(0.5, 4), backward = rng.uniform(1, 3);
    for (double f : forward) {
      table[type].forward.push_back(f / speed);
      table[type].backward.push_back(f * backward / speed);
    }
    worker.resources.push_back({type, 0, 0});
  }
  return profile_from_table(worker, table, bytes, bandwidth);
}

// Every cut into at most workers.size() stages, stage k on workers[k].
double enumerated_period(const std::vector<WorkerProfile>& workers) {
  std::vector<StageCosts> costs(workers.begin(), workers.end());
  const int L = workers[0].layers();
  double best = kInf;
  for (unsigned cuts = 0; cuts < (1u << (L - 1)); ++cuts) {
    if (__builtin_popcount(cuts) + 1 > static_cast<int>(workers.size())) continue;
    double period = 0;
    int first = 0, k = 0;
    for (int l = 0; l < L; ++l)
      if (l == L - 1 || (cuts >> l & 1u)) {
        period = std::max(period, costs[k++].cost(first, l));
        first = l + 1;
      }
    best = std::min(best, period);
  }
  return best;
}

TEST(SplitPartitionWorkers, EqualsEnumerationOnHeterogeneousWorkers) {
  SplitRng rng(4201);
  for (int trial = 0; trial < 200; ++trial) {
    const int L = rng.integer(1, 10), q = rng.integer(1, 5);
    std::vector<double> forward, bytes;
    for (int l = 0; l < L; ++l) forward.push_back(rng.uniform(0.1, 1)), bytes.push_back(rng.uniform(0, 1));
    std::vector<WorkerProfile> workers;
    for (int k = 0; k < q; ++k)
      workers.push_back(random_worker(rng, forward, bytes, trial % 2 ? kInf : rng.uniform(0.5, 5)));
    const SplitPartition exact = exact_partition(workers);
    EXPECT_NEAR(exact.period, enumerated_period(workers), 1e-12) << "trial " << trial;
    EXPECT_LE(exact.last_layer.size(), workers.size());
    EXPECT_EQ(exact.last_layer.back(), L - 1);
    double period = 0;
    int first = 0;
    for (std::size_t k = 0; k < exact.last_layer.size(); ++k) {
      period = std::max(period, StageCosts(workers[k]).cost(first, exact.last_layer[k]));
      first = exact.last_layer[k] + 1;
    }
    EXPECT_DOUBLE_EQ(period, exact.period);
  }
}

TEST(SplitPartitionWorkers, IdenticalWorkersGiveTheHomogeneousOptimum) {
  SplitRng rng(4202);
  for (int trial = 0; trial < 100; ++trial) {
    const int L = rng.integer(1, 20), q = rng.integer(1, 6);
    std::vector<double> forward, bytes;
    for (int l = 0; l < L; ++l) forward.push_back(rng.uniform(0.1, 1)), bytes.push_back(rng.uniform(0, 1));
    const WorkerProfile w = random_worker(rng, forward, bytes, rng.uniform(0.5, 5));
    EXPECT_EQ(exact_partition(std::vector<WorkerProfile>(q, w)).period, exact_partition(w, q).period) << trial;
  }
}

TEST(SplitPartitionWorkers, Errors) {
  EXPECT_EQ(
      pipesim::testing::error_message<std::invalid_argument>([] { exact_partition(std::vector<WorkerProfile>{}); }),
      "partition: workers must be >= 1, got 0");
  SplitRng rng(1);
  const WorkerProfile a = random_worker(rng, {1, 1}, {0, 0}, kInf), b = random_worker(rng, {1}, {0}, kInf);
  EXPECT_EQ(pipesim::testing::error_message<std::invalid_argument>([&] {
              exact_partition(std::vector<WorkerProfile>{a, b});
            }),
            "partition: workers disagree on the layers");
}

}  // namespace
}  // namespace pipesim::split
