// Seed 000 §7's PipeDream baseline: the planner (PipeDream's DP under its memory
// estimate) against brute force, the union of configurations, and eager runs
// measured in forked children against the engine-free steady state.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "schedules/pipedream/pipedream_baseline_internal.hpp"
#include "schedules/registry.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "studies/forked_run.hpp"
#include "studies/study.hpp"
#include "studies/study_runs.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

// P devices of 1 Tf/s with 1 GB/s links, as Platform values (no SimGrid).
Platform platform(int P, double bandwidth = 1e9) {
  testing::TableSpec spec{1e12, 1e12, 0, bandwidth};
  spec.self_paths = false;
  spec.file = "";
  return testing::table_platform(P, spec);
}

Workload chain(const std::vector<double>& seconds, const std::vector<double>& activation,
               const std::vector<double>& weights) {
  Workload w;
  w.microbatches = 8;
  w.reference_speed = 1e12;
  for (std::size_t l = 0; l < seconds.size(); ++l)
    w.layers.push_back(
        {"l" + std::to_string(l), {seconds[l] / 3, false}, {2 * seconds[l] / 3, false}, activation[l], weights[l]});
  w.input = 1;
  return w;
}

TEST(PipeDreamBaseline, MemoryEstimateIsPipeDreams) {
  Workload w = chain({1, 1, 1}, {10, 20, 30}, {1, 2, 3});
  // (sum of every operator's activations + sum W_l) x (P - 1 - slot); a layer of one operator: its a_l.
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 0, 1, 0, 4), (10 + 20 + 1 + 2) * 3.0);
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 2, 2, 1, 4), (30 + 3) * 2.0);
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 2, 2, 3, 4), 0);  // the last slot: nothing
  w.layers[1].operator_activations = 70;                          // a block: all its operators' outputs
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 0, 1, 0, 4), (10 + 70 + 1 + 2) * 3.0);
}

TEST(PipeDreamBaseline, PlannerBalancesThenObeysTheTarget) {
  // 4 layers of 1, 1, 1, 3 s on 2 devices.
  const Workload w = chain({1, 1, 1, 3}, {100, 100, 100, 100}, {0, 0, 0, 0});
  const Platform p = platform(2, 1e15);
  const PipeDreamPlan free = pipedream_plan(w, p);
  ASSERT_TRUE(free.feasible);
  EXPECT_EQ(free.allocation, (Allocation{0, 0, 0, 1}));
  EXPECT_NEAR(free.bottleneck, 3, 1e-9);
  EXPECT_EQ(free.estimate, (std::vector<double>{300, 0}));
  // Stage 0's estimate is (its activations) x 1: a target of 250 allows two layers there.
  const PipeDreamPlan tight = pipedream_plan(w, p, {250});
  ASSERT_TRUE(tight.feasible);
  EXPECT_EQ(tight.allocation, (Allocation{0, 0, 1, 1}));
  EXPECT_NEAR(tight.bottleneck, 4, 1e-9);
  EXPECT_FALSE(pipedream_plan(w, p, {50}).feasible);  // stage 0 needs at least one layer: 100
  // Where the estimates cross a target: slot 0's prefixes (the last slot stashes nothing).
  EXPECT_EQ(pipedream_memory_thresholds(pipedream_chain(w, p), 2), (std::vector<double>{100, 200, 300, 400}));
}

// The communication term is PipeDream's option, off by default: on, a cut
// after a large activation costs 2 a / bandwidth and moves the partition.
TEST(PipeDreamBaseline, CommunicationTermOnlyWhenAsked) {
  const Workload w = chain({1, 1, 1, 3}, {100, 100, 4e9, 100}, {0, 0, 0, 0});
  const Platform p = platform(2, 1e9);  // cutting after layer 2: 2 x 4e9 / 1e9 = 8 s
  EXPECT_EQ(pipedream_plan(w, p).allocation, (Allocation{0, 0, 0, 1}));
  const PipeDreamPlan with = pipedream_plan(w, p, {0, true});
  EXPECT_EQ(with.allocation, (Allocation{0, 0, 1, 1}));
  EXPECT_NEAR(with.bottleneck, 4, 1e-12);
  EXPECT_EQ(pipedream_settings(p, {0, true}).bandwidth, 1e9);
  EXPECT_EQ(pipedream_settings(p, {0, true}).compression_ratio, 1);
  EXPECT_EQ(pipedream_settings(p, {}).compression_ratio, 0);
}

// Brute force over what the recursion can express: contiguous stages in
// increasing machine slots, the first in slot 0, all P slots (or, with
// fewer machines, any; but after a first stage of layer 0 alone the next is
// in slot 1: the optimizer never fills A[0][m >= 1]); each stage's estimate
// at its slot within the target; the largest stage time and, with the
// communication term, 2 a / bandwidth of every cut.
double brute_force(const Workload& w, int P, double target, bool communication, bool fewer, double bandwidth) {
  const int L = static_cast<int>(w.layers.size());
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, int, double)> extend = [&](int first, int slot, double load) {
    for (int last = first; last < L; ++last) {
      double sec = 0;
      for (int l = first; l <= last; ++l) sec += w.layers[l].forward.value + w.layers[l].backward.value;
      if (target > 0 && pipedream_memory_estimate(w, first, last, slot, P) > target) continue;
      double v = std::max(load, sec);
      if (communication && last + 1 < L) v = std::max(v, 2 * w.layers[last].activation / bandwidth);
      if (last + 1 == L) {
        if (fewer || slot == P - 1) best = std::min(best, v);
        continue;
      }
      const int max_next = (first == 0 && last == 0) ? 1 : (fewer ? P - 1 : slot + 1);
      for (int next = slot + 1; next <= std::min(max_next, P - 1); ++next) extend(last + 1, next, v);
    }
  };
  extend(0, 0, 0);
  return best;
}

TEST(PipeDreamBaseline, PlannerIsOptimalOverWhatItCanExpress) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (int trial = 0; trial < 80; ++trial) {
    const int L = 3 + trial % 6, P = 2 + trial % 3;
    std::vector<double> s(L), a(L), wt(L);
    for (int l = 0; l < L; ++l) s[l] = u(rng), a[l] = 1e8 * u(rng), wt[l] = 1e8 * u(rng);
    const Workload w = chain(s, a, wt);
    const Platform p = platform(P, 1e9);
    const double target = (trial % 2) ? 0 : 6e8 * u(rng);
    const PipeDreamFlags flags{target, trial % 4 >= 2, trial % 8 >= 4};
    const double best = brute_force(w, P, target, flags.communication, flags.fewer_machines, 1e9);
    const PipeDreamPlan plan = pipedream_plan(w, p, flags);
    ASSERT_EQ(plan.feasible, std::isfinite(best)) << trial;
    if (plan.feasible) {
      EXPECT_NEAR(plan.bottleneck, best, 1e-12 * best) << trial;
      for (double e : plan.estimate) EXPECT_TRUE(target <= 0 || e <= target);
    }
  }
}

TEST(PipeDreamBaseline, ConfigurationsAreTheUnionOverTargetsAndSettings) {
  const Workload w = chain({1, 1, 1, 3, 2, 2}, {100, 300, 100, 200, 100, 50}, {10, 10, 10, 10, 10, 10});
  const Platform p = platform(3, 200);  // transfers of 0.25 to 3 s: the communication term matters
  const std::vector<BaselineConfig> configs = pipedream_configurations(w, p, BaselineOptions{});
  ASSERT_FALSE(configs.empty());
  for (std::size_t i = 0; i < configs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(configs[i].plan.allocation == configs[j].plan.allocation && configs[i].noam == configs[j].noam);
  for (const BaselineConfig& c : configs) {
    EXPECT_GE(c.noam, 1);
    EXPECT_LE(c.noam, 3);
    for (double e : c.plan.estimate) EXPECT_LE(e, c.memory_target);
    // The recorded setting gives this partition at this target.
    EXPECT_EQ(pipedream_plan(w, p, {c.memory_target, c.communication, c.fewer_machines}).allocation, c.plan.allocation);
  }
  // Every partition the planner gives at any target, with or without the
  // communication term, is there with every NOAM, with its smallest target.
  auto count = [&](const Allocation& a) {
    int n = 0;
    for (const BaselineConfig& c : configs) n += c.plan.allocation == a;
    return n;
  };
  std::set<Allocation> distinct;
  for (double target = 0; target < 2000; target += 0.5)
    for (bool communication : {false, true})
      for (bool fewer : {false, true}) {
        const PipeDreamPlan plan = pipedream_plan(w, p, {target, communication, fewer});
        if (!plan.feasible) continue;
        distinct.insert(plan.allocation);
        EXPECT_EQ(count(plan.allocation), 3) << describe_stages(plan.last_layer);
        for (const BaselineConfig& c : configs)
          if (c.plan.allocation == plan.allocation && target > 0) {
            EXPECT_LE(c.memory_target, target);
          }
      }
  EXPECT_EQ(configs.size(), 3 * distinct.size());
  EXPECT_GT(distinct.size(), 3u);
  // Deterministic order: by target, then setting, then NOAM.
  for (std::size_t i = 1; i < configs.size(); ++i) EXPECT_LE(configs[i - 1].memory_target, configs[i].memory_target);
  // With ties > 1, also other partitions PipeDream may return: a superset.
  // (Layer 3 bounds every plan: how the others are spread is a tie.)
  const Workload skewed = chain({1, 1, 1, 6, 1, 1}, {100, 300, 100, 200, 100, 50}, {10, 10, 10, 10, 10, 10});
  BaselineOptions more;
  more.ties = 50;
  std::set<Allocation> one, many;
  for (const BaselineConfig& c : pipedream_configurations(skewed, p, BaselineOptions{})) one.insert(c.plan.allocation);
  for (const BaselineConfig& c : pipedream_configurations(skewed, p, more)) many.insert(c.plan.allocation);
  for (const Allocation& a : one) EXPECT_TRUE(many.count(a));
  EXPECT_GT(many.size(), one.size());
  const PipeDreamPlan free = pipedream_plan(w, platform(3, 1e15));
  const BaselineConfig c{1, 2, free};
  EXPECT_EQ(describe(c), "noam=2 stages=0-2|3|4-5");
}

// Every tied partition PipeDream may return: each configuration is evaluated
// by its pattern and only those on the time/memory front are simulated, which
// loses nothing: at every memory limit the study's best is as fast as the
// best of all of them, simulated or not (24 random 8-layer chains on 4
// devices, one layer 3-6 times the others, which makes ties).
TEST(PipeDreamBaseline, TiedPartitionsAreScreenedSoundly) {
  const std::string file = testing::complete_platform(4, "1GBps", "0s", "1Tf", "1TiB");
  Simulation simulation(file);
  const Platform& p = simulation.platform();
  std::size_t tied_configurations = 0, simulated = 0;
  for (int seed = 0; seed < 24; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto integer = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
    std::vector<double> seconds, activations, weights;
    const int heavy = integer(2, 5);
    for (int l = 0; l < 8; ++l) {
      seconds.push_back(l == heavy ? 0.06 : 0.01 * integer(1, 2));
      activations.push_back(1e6 * integer(1, 9));
      weights.push_back(1e6 * integer(1, 5));
    }
    const Workload w = chain(seconds, activations, weights);
    StudySettings settings;
    settings.microbatches = 60;
    settings.ilp = false;
    const std::vector<StudyPoint> own = pipedream_points(simulation, w, {}, settings);
    settings.pipedream_ties = 50;
    const std::vector<StudyPoint> all = pipedream_points(simulation, w, {}, settings);
    ASSERT_GE(all.size(), own.size());
    simulated += all.size() - own.size();
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string& config = all[i].config;
      EXPECT_EQ(config.size() > 5 && config.substr(config.size() - 5) == " tied", i >= own.size()) << config;
      if (i < own.size()) {
        EXPECT_EQ(config, own[i].config);
      }
      if (all[i].pattern) {
        EXPECT_EQ(all[i].peak_memory, all[i].analytic_peak) << config;
      }
    }
    BaselineOptions options;
    options.ties = 50;
    bool capped = true;
    const std::vector<BaselineConfig> tied = pipedream_configurations(w, p, options, &capped);
    EXPECT_FALSE(capped);
    tied_configurations += tied.size() - own.size();
    std::vector<std::pair<double, double>> evaluated;  // peak, period of every configuration with a pattern
    for (const BaselineConfig& c : tied) {
      try {
        Pattern pattern = pipedream_pattern(c.plan.allocation, c.noam, w, p);
        pattern.buffers = BufferPolicy::Seed000;
        const PatternTiming timing = pattern_timing(pattern, w, p);
        const PatternMemory memory = pattern_memory(pattern, timing, w, p.size());
        double peak = 0;
        for (const PatternDeviceMemory& d : memory.devices) peak = std::max(peak, d.peak);
        evaluated.emplace_back(peak, exact_period(pattern_event_graph(pattern, timing)).period / pattern.copies);
      } catch (const std::invalid_argument&) {
      }
    }
    for (const auto& [limit, unused] : evaluated) {
      double best = std::numeric_limits<double>::infinity();
      for (const auto& [peak, period] : evaluated)
        if (peak <= limit) best = std::min(best, period);
      const StudyPoint* study = best_within(all, "pipedream", limit);
      ASSERT_NE(study, nullptr) << limit;
      EXPECT_LE(study->period, best * (1 + 1e-9)) << limit;
    }
  }
  EXPECT_EQ(tied_configurations, 204u);  // beside the planner's own
  EXPECT_EQ(simulated, 46u);             // on the front, or without a pattern
  BaselineOptions two;
  two.ties = 2;
  bool capped = false;
  pipedream_configurations(
      chain({0.01, 0.01, 0.01, 0.01, 0.08, 0.01, 0.01, 0.01}, std::vector<double>(8, 1e6), std::vector<double>(8, 1e6)),
      p, two, &capped);
  EXPECT_TRUE(capped);
}

// One accounting: a study point runs exactly what `schedule: pipedream` with
// the same allocation and NOAM runs (its pattern unrolled when it has one),
// with seed 000's buffers like the ILP's answers it is compared with.
TEST(PipeDreamBaseline, TheStudyRunsWhatPipesimRunRuns) {
  const Platform p = platform(3);
  const Workload w = chain({0.010, 0.020, 0.010, 0.030, 0.020}, {2e6, 1e6, 3e6, 1e6, 1e6}, {1e6, 1e6, 1e6, 1e6, 1e6});
  const PipeDreamPlan plan = pipedream_plan(w, p);
  ASSERT_TRUE(plan.feasible);
  for (int noam = 1; noam <= 3; ++noam) {
    Workload run = w;
    run.microbatches = 100;
    run.schedule = "pipedream";
    run.schedule_params = {
        {"allocation", to_string(plan.allocation)}, {"noam", std::to_string(noam)}, {"memory_policy", "seed000"}};
    const GeneratedSchedule expected = generate(run, p);
    const TaskGraph g =
        pipedream_run(plan.allocation, noam, w, p, 100, BufferPolicy::Seed000).first;  // the study's call
    ASSERT_EQ(g.size(), expected.graph.size()) << "noam " << noam;
    ASSERT_EQ(g.memory_effects().size(), expected.graph.memory_effects().size());
    ASSERT_EQ(g.static_memory().size(), expected.graph.static_memory().size());
    for (TaskId t = 0; t < g.size(); ++t) {
      EXPECT_EQ(g.task(t).kind, expected.graph.task(t).kind);
      EXPECT_EQ(g.task(t).device, expected.graph.task(t).device);
      EXPECT_EQ(g.task(t).amount, expected.graph.task(t).amount);
    }
    for (std::size_t i = 0; i < g.static_memory().size(); ++i)
      EXPECT_EQ(g.static_memory()[i].bytes, expected.graph.static_memory()[i].bytes);
  }
}

// The eager run measured in a forked child (Simulation loaded once, in the
// parent) has the period of the engine-free steady state, and memory grows with NOAM.
TEST(PipeDreamBaseline, ForkedEagerRunsMatchTheSteadyState) {
  const std::string file = testing::complete_platform(3, "1GBps", "0s", "1Tf", "1TiB");
  Simulation simulation(file);
  const Platform& p = simulation.platform();
  const Workload w = chain({0.010, 0.020, 0.010, 0.030, 0.020}, {2e6, 1e6, 3e6, 1e6, 1e6}, {1e6, 1e6, 1e6, 1e6, 1e6});
  const PipeDreamPlan plan = pipedream_plan(w, p);
  ASSERT_TRUE(plan.feasible);
  double previous_peak = 0;
  for (int noam = 1; noam <= 3; ++noam) {
    const TaskGraph graph = pipedream_schedule(allocation_plan(plan.allocation, w, p), 500, noam, p.size());
    const RunMeasure m = decode(run_forked([&] { return encode(measure_run(graph, simulation.run(graph), p)); }));
    ASSERT_TRUE(m.completed);
    ASSERT_EQ(m.device_peaks.size(), 3u);
    const Pattern steady = pipedream_pattern(plan.allocation, noam, w, p);
    EXPECT_NEAR(m.period, steady.period, 1e-9 * steady.period) << "noam " << noam;
    EXPECT_GT(m.peak(), previous_peak) << "noam " << noam;
    previous_peak = m.peak();
  }
  // NOAM = 1 runs one micro-batch at a time: the period is the whole forward + backward + transfers.
  const RunMeasure one = decode(run_forked([&] {
    const TaskGraph g = pipedream_schedule(allocation_plan(plan.allocation, w, p), 500, 1, p.size());
    return encode(measure_run(g, simulation.run(g), p));
  }));
  double total = 0.09;
  for (std::size_t s = 0; s + 1 < plan.last_layer.size(); ++s)
    total += 2 * w.layers[plan.last_layer[s]].activation / 1e9;
  EXPECT_NEAR(one.period, total, 1e-9);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// The study's runs take the analytic engine in process where it is exact and
// SimGrid in a forked child otherwise: the points are the same either way
// (cpu/optim:Full changes no time here but rules the analytic engine out).
TEST(PipeDreamBaseline, PointsAreTheSameFromTheAnalyticEngineAndFromSimGrid) {
  const std::string file = testing::complete_platform(3, "1GBps", "0s", "1Tf", "1TiB");
  const Workload w = chain({0.010, 0.020, 0.010, 0.030, 0.020}, {2e6, 1e6, 3e6, 1e6, 1e6}, {1e6, 1e6, 1e6, 1e6, 1e6});
  StudySettings settings;
  settings.microbatches = 40;
  settings.ilp = false;
  // Each in its own process: SimGrid allows one engine per process.
  auto points = [&](const std::vector<std::string>& config, bool analytic) {
    const std::string text = run_forked([&] {
      Simulation simulation(file, config);
      TaskGraph probe(3);
      Task task;
      task.device = 0;
      probe.add(task);
      if (simulation.run_analytic(probe).timeline.has_value() != analytic) return std::string("engine?");
      std::ostringstream out;
      write_study_csv(out, pipedream_points(simulation, w, {1e9}, settings));
      return out.str();
    });
    std::vector<StudyPoint> parsed;
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      std::vector<std::string> f;
      std::stringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      StudyPoint p;
      p.peak_memory = std::stod(f.at(2));
      p.period = std::stod(f.at(3));
      p.status = f.at(6);
      p.config = f.size() > 7 ? f[7] : "";
      parsed.push_back(p);
    }
    EXPECT_NE(text, "engine?") << (analytic ? "analytic" : "simgrid");
    return parsed;
  };
  const std::vector<StudyPoint> analytic = points({}, true);
  const std::vector<StudyPoint> simgrid = points({"cpu/optim:Full"}, false);
  ASSERT_EQ(analytic.size(), simgrid.size());
  ASSERT_FALSE(analytic.empty());
  for (std::size_t i = 0; i < analytic.size(); ++i) {
    EXPECT_EQ(analytic[i].status, simgrid[i].status);
    EXPECT_EQ(analytic[i].config, simgrid[i].config);
    EXPECT_NEAR(analytic[i].period, simgrid[i].period, 1e-9 * simgrid[i].period) << analytic[i].config;
    EXPECT_EQ(analytic[i].peak_memory, simgrid[i].peak_memory) << analytic[i].config;
  }
}

}  // namespace
}  // namespace pipesim
