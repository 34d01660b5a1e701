// validate_pattern on hand-made patterns with one planted violation each,
// and on valid ones (random patterns, the pattern format's example).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "analysis/run_validation.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "patterns/pattern_yaml.hpp"
#include "reports/violations_report.hpp"
#include "schedules/flush/flush_pattern.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "sim/input_error.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

// docs/pattern-format.md's example: 1F1B on two GPUs, period 4 s; F = 1 s,
// B = 2 s, a_1 = 500 MB at 1 GB/s (0.5 s transfers).
const Workload kExampleWorkload = chain_workload({1, 1}, {2, 2}, {5e8, 5e8});

Pattern example() {
  Pattern p = make_pattern(2, 1, 4, {F(0, 0, 0), B(0, 0, 1), F(1, 1, 1.5), B(1, 1, 2.5)}, WeightPolicy::Flush);
  p.ops[0].shift = 1, p.ops[2].shift = 1, p.ops[3].shift = 1;
  p.transfers = {{index_of(p, TaskKind::Forward, 0), 1, 1}, {index_of(p, TaskKind::Backward, 1), 0.5, 0}};
  return p;
}

std::vector<Violation> check(const Pattern& p, const Workload& w, const Platform& platform) {
  return validate_pattern(p, pattern_timing(p, w, platform), platform, w);
}

// Offsets as given, transfers placed and shifts computed as `pipesim run` does.
std::vector<Violation> check_minimal(Pattern p, const Workload& w, const Platform& platform) {
  const PatternTiming t = pattern_timing(p, w, platform);
  assign_minimal_shifts(p, t);
  return validate_pattern(p, t, platform, w);
}

std::string all(const std::vector<Violation>& v) {
  std::string s;
  for (const Violation& x : v) s += x.kind + ": " + x.message + "\n";
  return s;
}

int count(const std::vector<Violation>& v, const std::string& kind) {
  int n = 0;
  for (const Violation& x : v) n += x.kind == kind;
  return n;
}

TEST(ValidatePattern, AcceptsTheFormatExample) {
  const Platform platform = pattern_platform(2);
  EXPECT_EQ(all(check(example(), kExampleWorkload, platform)), "");
}

TEST(ValidatePattern, AcceptsRandomValidPatterns) {
  for (int seed = 0; seed < 120; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed), 0.001, 1e9);
    const RandomCase rc = random_case(seed, platform);
    EXPECT_EQ(all(check(rc.pattern, rc.workload, platform)), "") << "seed " << seed;
  }
}

// The committed pattern generator: flush schedules as k = M patterns.
TEST(ValidatePattern, AcceptsFlushSchedulesAsPatterns) {
  for (bool gpipe : {true, false})
    for (int S : {2, 3, 4})
      for (int M : {1, 3, 8}) {
        const Platform platform = pattern_platform(S, 1e-3, 1e9);
        Workload w = chain_workload({1, 0.5, 2, 1}, {2, 1, 3, 2}, {3e8, 1e8, 5e8, 2e8}, 1e8, {1e9, 2e9, 1e9, 3e9});
        w.placement.stages = S;
        const auto sequences = gpipe ? gpipe_sequences(S, M) : one_f_one_b_sequences(S, M);
        const Pattern p = flush_pattern(make_stage_plan(w, platform), sequences, w, platform);
        EXPECT_EQ(all(check(p, w, platform)), "") << (gpipe ? "gpipe" : "1f1b") << " S=" << S << " M=" << M;
      }
}

TEST(ValidatePattern, DeviceOverlap) {
  Pattern p = example();
  p.ops[index_of(p, TaskKind::Backward, 0)].start = 0.5;  // B1 [0.5, 2.5) over F1 [0, 1)
  const auto v = check_minimal(p, kExampleWorkload, pattern_platform(2));
  ASSERT_EQ(v.size(), 1u) << all(v);
  EXPECT_EQ(v[0].kind, "overlap");
  EXPECT_EQ(v[0].message, "device gpu0: F1 [0, 1) and B1 [0.5, 2.5) (mod period 4)");
  EXPECT_EQ(v[0].device, 0);
  EXPECT_EQ(v[0].time, 0.5);
}

TEST(ValidatePattern, OverlapAcrossThePeriodsEnd) {
  Pattern p = example();
  p.ops[index_of(p, TaskKind::Forward, 1)].start = 0.2;  // F2 [0.2, 1.2) under B2's tail [4, 4.5)
  const auto v = check_minimal(p, kExampleWorkload, pattern_platform(2));
  ASSERT_EQ(count(v, "overlap"), 1) << all(v);
  EXPECT_EQ(v[0].message, "device gpu1: B2 [2.5, 4.5) and F2 [0.2, 1.2) (mod period 4)");
}

TEST(ValidatePattern, EveryOverlappingPairIsReported) {
  const Workload w = chain_workload({1, 1}, {2, 2}, {1, 1});
  // All on gpu0: F1 [0, 1), F2 [0.5, 1.5), B2 [0.9, 2.9) overlap pairwise; B1 is clear.
  const Pattern p = make_pattern(2, 1, 8, {F(0, 0, 0), F(1, 0, 0.5), B(1, 0, 0.9), B(0, 0, 5)});
  const auto v = check_minimal(p, w, pattern_platform(1));
  ASSERT_EQ(v.size(), 3u) << all(v);
  EXPECT_NE(v[0].message.find("F1 [0, 1) and F2 [0.5, 1.5)"), std::string::npos);
  EXPECT_NE(v[1].message.find("F1 [0, 1) and B2 [0.9, 2.9)"), std::string::npos);
  EXPECT_NE(v[2].message.find("F2 [0.5, 1.5) and B2 [0.9, 2.9)"), std::string::npos);
}

TEST(ValidatePattern, OpLongerThanThePeriod) {
  const Workload w = chain_workload({1}, {2}, {1});
  const Pattern p = make_pattern(1, 1, 1.5, {F(0, 0, 0), B(0, 0, 0)});
  const auto v = check_minimal(p, w, pattern_platform(1));
  EXPECT_NE(all(v).find("overlap: device gpu0: B1 [0, 2) lasts longer than the period 1.5"), std::string::npos)
      << all(v);
}

TEST(ValidatePattern, LinkOverlap) {
  Pattern p = example();
  p.transfers[0].start = 0.3;  // after F1 [0.3, 0.8) and after B2 [0.5, 1) share the link
  const auto v = check_minimal(p, kExampleWorkload, pattern_platform(2));
  ASSERT_EQ(count(v, "overlap"), 1) << all(v);
  EXPECT_EQ(v[0].message,
            "link gpu0-gpu1: the transfer after F1 [0.3, 0.8) and the transfer after B2 [0.5, 1) (mod period 4)");
  EXPECT_EQ(v[0].device, -1);
}

TEST(ValidatePattern, ShiftNotSmallerWhenStartingBeforeTheProducerEnds) {
  Pattern p = example();
  p.transfers[1].shift = 1;  // sends B2's gradient at 0.5, before B2 (shift 1) ends at 4.5
  const auto v = check(p, kExampleWorkload, pattern_platform(2));
  ASSERT_EQ(count(v, "shift"), 1) << all(v);
  EXPECT_EQ(v[0].message,
            "the transfer after B2 (shift 1) starts at 0.5, before B2 (shift 1) ends at 4.5, but does not have a "
            "smaller shift (Definition 1)");
  EXPECT_EQ(v[0].device, 1);
}

TEST(ValidatePattern, ShiftLargerThanTheProducers) {
  Pattern p = example();
  p.ops[index_of(p, TaskKind::Forward, 1)].shift = 2;  // F2 after its input's transfer (shift 1)
  p.ops[index_of(p, TaskKind::Backward, 1)].shift = 2;
  p.transfers[1].shift = 1;
  const auto v = check(p, kExampleWorkload, pattern_platform(2));
  ASSERT_EQ(count(v, "shift"), 1) << all(v);
  EXPECT_EQ(v[0].message,
            "F2 (shift 2) has a larger shift than the transfer after F1 (shift 1), whose output it consumes: it "
            "would need a micro-batch the transfer after F1 handles 1 period later (Definition 1)");
}

TEST(ValidatePattern, ShiftTwoPeriodsBehind) {
  // Period 10, a_1 takes 3.9 s to send: F1's transfer starts at 9 and ends at
  // 12.9, more than a period after F2 starts at 0.5 (seed 000 Lemma 9).
  const Workload w = chain_workload({1, 1}, {2, 2}, {3.9e9, 3.9e9});
  Pattern p = make_pattern(2, 1, 10, {F(0, 0, 0), B(0, 0, 7.5), F(1, 1, 0.5), B(1, 1, 1.5)});
  p.transfers = {{index_of(p, TaskKind::Forward, 0), 9, 2}, {index_of(p, TaskKind::Backward, 1), 3.5, 0}};
  p.ops[index_of(p, TaskKind::Forward, 0)].shift = 2;
  const Platform platform = pattern_platform(2);
  EXPECT_EQ(all(check(p, w, platform)), "");
  p.transfers[0].shift = 1;
  const auto v = check(p, w, platform);
  ASSERT_EQ(count(v, "shift"), 1) << all(v);
  EXPECT_EQ(v[0].message,
            "F2 (shift 0) starts at 0.5, more than 1 period before the transfer after F1 (shift 1) ends at 12.9: "
            "its shift must be at most -1 (Definition 1, seed 000 Lemma 9)");
}

TEST(ValidatePattern, DeadlockIsAZeroTokenCycle) {
  // B1 first in the period, F1 after it, both shift 0: B1 waits for F1 of the
  // same period, which waits (device order) for B1.
  const Workload w = chain_workload({1}, {2}, {1});
  Pattern p = make_pattern(1, 1, 3, {F(0, 0, 2), B(0, 0, 0)});
  const auto v = check(p, w, pattern_platform(1));
  ASSERT_EQ(count(v, "deadlock"), 1) << all(v);
  EXPECT_EQ(count(v, "shift"), 1);
  EXPECT_NE(all(v).find("deadlock: circular wait: "), std::string::npos);
  EXPECT_NE(all(v).find("F1 waits (device order) for B1"), std::string::npos) << all(v);
  EXPECT_NE(all(v).find("B1 waits (data) for F1"), std::string::npos) << all(v);
  EXPECT_NE(all(v).find("carries 0 tokens"), std::string::npos);
  p.ops[0].shift = 1;  // the valid shift: no deadlock
  EXPECT_EQ(all(check(p, w, pattern_platform(1))), "");
}

TEST(ValidatePattern, MemoryAboveCapacity) {
  Platform platform = pattern_platform(2);
  platform.devices[1].memory = 1e9;  // gpu1 holds 2.5 GB during B2
  const auto v = check(example(), kExampleWorkload, platform);
  ASSERT_EQ(v.size(), 1u) << all(v);
  EXPECT_EQ(v[0].kind, "memory");
  EXPECT_EQ(v[0].message,
            "gpu1 at t=2.5 in the period (during B2, steady state) uses 2.33 GiB of 953.67 MiB (activations 476.84 "
            "MiB, comm_buffers 1.86 GiB)");
  EXPECT_EQ(v[0].device, 1);
  EXPECT_EQ(v[0].time, 2.5);
}

TEST(ValidatePattern, StructureAloneWhenMalformed) {
  const Platform platform = pattern_platform(2);
  const PatternTiming none;  // not looked at: nothing else is checked
  Pattern missing = example();
  missing.ops.pop_back();
  missing.transfers.pop_back();
  EXPECT_EQ(all(validate_pattern(missing, none, platform, kExampleWorkload)),
            "structure: B2 is missing: every task must appear exactly once per copy (Definition 1)\n");

  Pattern twice = example();
  twice.ops.push_back(twice.ops[0]);
  EXPECT_NE(all(validate_pattern(twice, none, platform, kExampleWorkload)).find("F1 appears 2 times"),
            std::string::npos);

  Pattern apart = example();
  apart.ops[index_of(apart, TaskKind::Backward, 1)].device = 0;
  EXPECT_NE(all(validate_pattern(apart, none, platform, kExampleWorkload))
                .find("F2 runs on gpu1 but B2 on gpu0: a layer's forward and backward share a device"),
            std::string::npos);

  Pattern late = example();
  late.ops[1].start = 4;
  EXPECT_EQ(all(validate_pattern(late, none, platform, kExampleWorkload)),
            "structure: B1 starts at 4, outside [0, 4)\n");

  Pattern untransferred = example();
  untransferred.transfers.pop_back();
  EXPECT_EQ(all(validate_pattern(untransferred, none, platform, kExampleWorkload)),
            "structure: no transfer after B2 from gpu1 to gpu0 (Definition 1: every T^c_{l,l+1} once)\n");
}

// Every prefix and every one-character corruption of a valid file is either
// rejected as bad input or validated without an unexpected exception.
TEST(ValidatePattern, DamagedFilesAreRejectedOrChecked) {
  const Platform platform = pattern_platform(2);
  std::ostringstream out;
  write_pattern_yaml(out, example(), platform);
  const std::string text = out.str();
  std::vector<std::string> damaged;
  for (std::size_t n = 0; n <= text.size(); ++n) damaged.push_back(text.substr(0, n));
  for (std::size_t i = 0; i < text.size(); ++i)
    for (char c : {'-', '9', ':', '[', ' ', 'x'}) damaged.push_back(std::string(text).replace(i, 1, 1, c));
  int read = 0;
  for (const std::string& t : damaged) {
    Pattern p;
    PatternTiming timing;
    try {
      PatternSource src;
      p = parse_pattern_yaml(t, "p.yaml", platform, 2, &src);
      timing = pattern_timing(p, kExampleWorkload, platform);
      const bool given = std::count(src.op_shift.begin(), src.op_shift.end(), false) == 0 &&
                         std::count(src.transfer_shift.begin(), src.transfer_shift.end(), false) == 0 &&
                         p.transfers.size() == 2;
      if (!given) assign_minimal_shifts(p, timing);  // as the CLI does when shifts or transfers are missing
    } catch (const InputError&) {
      continue;
    } catch (const std::invalid_argument&) {  // pattern_timing: the CLI reports it as bad input
      continue;
    }
    ++read;
    EXPECT_NO_THROW(validate_pattern(p, timing, platform, kExampleWorkload)) << t;
  }
  EXPECT_GT(read, 100);
}

TEST(ValidatePattern, RejectsATimingOfAnotherPattern) {
  const Platform platform = pattern_platform(2);
  EXPECT_THROW(validate_pattern(example(), PatternTiming{}, platform, kExampleWorkload), std::invalid_argument);
}

}  // namespace
}  // namespace pipesim
