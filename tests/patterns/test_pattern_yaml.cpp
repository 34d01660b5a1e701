// Pattern files: round trip, every malformed-input error, and the registry's
// `schedule: {name: pattern, file: ...}`.
#include <gtest/gtest.h>

#include <sstream>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "patterns/pattern_yaml.hpp"
#include "schedules/registry.hpp"
#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

using namespace testing;

std::string to_yaml(const Pattern& p, const Platform& platform) {
  std::ostringstream out;
  write_pattern_yaml(out, p, platform);
  return out.str();
}

void expect_same(const Pattern& a, const Pattern& b) {
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.copies, b.copies);
  EXPECT_EQ(a.period, b.period);
  EXPECT_EQ(a.weights, b.weights);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const PatternOp& x = a.ops[i];
    const int j = b.find(a.task_number(x), x.copy);
    ASSERT_GE(j, 0);
    EXPECT_EQ(x.device, b.ops[j].device);
    EXPECT_EQ(x.start, b.ops[j].start);  // exact: numbers are written in their shortest exact form
    EXPECT_EQ(x.shift, b.ops[j].shift);
  }
  ASSERT_EQ(a.transfers.size(), b.transfers.size());
  for (const PatternTransfer& t : a.transfers) {
    const PatternOp& from = a.ops[t.from];
    bool found = false;
    for (const PatternTransfer& u : b.transfers) {
      const PatternOp& other = b.ops[u.from];
      if (b.task_number(other) != a.task_number(from) || other.copy != from.copy) continue;
      found = true;
      EXPECT_EQ(t.start, u.start);
      EXPECT_EQ(t.shift, u.shift);
    }
    EXPECT_TRUE(found);
  }
}

TEST(PatternYaml, RoundTripOfRandomPatterns) {
  for (int seed = 0; seed < 40; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed), 0.001, 1e9);
    const RandomCase rc = random_case(seed, platform);
    const std::string text = to_yaml(rc.pattern, platform);
    expect_same(rc.pattern, parse_pattern_yaml(text, "p.yaml", platform));
    // Complete files are checked, not recomputed: the same pattern comes back.
    expect_same(rc.pattern, load_pattern_text(text, "p.yaml", rc.workload, platform));
    EXPECT_EQ(to_yaml(parse_pattern_yaml(text, "p.yaml", platform), platform), text) << seed;
  }
}

TEST(PatternYaml, WritesTheDocumentedFormat) {
  const Platform platform = pattern_platform(2);
  const Workload w = chain_workload({1, 1}, {2, 2}, {0, 0});
  const Pattern p = load_pattern_text(
      "period: 3\ntasks:\n"
      "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n"
      "  - {task: F2, device: gpu1, start: 1}\n  - {task: B2, device: gpu1, start: 2}\n",
      "p.yaml", w, platform);
  EXPECT_EQ(to_yaml(p, platform),
            "# Periodic pattern (seed 000 Definition 1), format: docs/pattern-format.md\n"
            "period: 3\ncopies: 1\nweights: 2bw\ntasks:\n"
            "  - {task: F1, copy: 0, device: gpu0, start: 0, shift: 1}\n"
            "  - {task: F2, copy: 0, device: gpu1, start: 1, shift: 1}\n"
            "  - {task: B2, copy: 0, device: gpu1, start: 2, shift: 1}\n"
            "  - {task: B1, copy: 0, device: gpu0, start: 1, shift: 0}\n"
            "transfers:\n"
            "  - {after: F1, copy: 0, start: 1, shift: 1}\n"
            "  - {after: B2, copy: 0, start: 1, shift: 0}\n");
}

// Two layers on gpu0/gpu1; F = 1 s, B = 2 s; 0.5 s transfers. B2 wraps
// into the next period, ending at 0.5, when its gradient leaves.
const char* const kValid =
    "period: 4\n"
    "copies: 1\n"
    "weights: flush\n"
    "tasks:\n"
    "  - {task: F1, copy: 0, device: gpu0, start: 0, shift: 1}\n"
    "  - {task: B1, device: gpu0, start: 1, shift: 0}\n"
    "  - {task: F2, device: gpu1, start: 1.5, shift: 1}\n"
    "  - {task: B2, device: gpu1, start: 2.5, shift: 1}\n"
    "transfers:\n"
    "  - {after: F1, start: 1, shift: 1}\n"
    "  - {after: B2, copy: 0, start: 0.5, shift: 0}\n";

Workload two_layers() { return chain_workload({1, 1}, {2, 2}, {5e8, 5e8}); }

std::string load_error(const std::string& text) {
  try {
    load_pattern_text(text, "p.yaml", two_layers(), pattern_platform(3));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(PatternYaml, ValidFileLoads) {
  const Pattern p = load_pattern_text(kValid, "p.yaml", two_layers(), pattern_platform(3));
  EXPECT_EQ(p.layers, 2);
  EXPECT_EQ(p.weights, WeightPolicy::Flush);
  EXPECT_EQ(p.transfers.size(), 2u);
  EXPECT_EQ(load_error(kValid), "(no error)");
}

struct BadCase {
  std::string name, from, to, expected;
};

std::vector<BadCase> bad_cases() {
  return {
      {"BadYaml", "copies: 1\n", "copies: [1\n", "p.yaml: line 3: YAML syntax error: "},
      {"UnknownKey", "copies: 1\n", "copy: 1\n", "p.yaml: line 2: copy: unknown key 'copy'; expected one of: "},
      {"MissingPeriod", "period: 4\n", "", "p.yaml: line 1: period: missing required field"},
      {"ZeroPeriod", "period: 4\n", "period: 0\n",
       "p.yaml: line 1: period: expected a positive period of at most 1e200 s, got '0'"},
      {"BadWeights", "weights: flush", "weights: pipedream",
       "p.yaml: line 3: weights: expected flush, 2bw or stashing"},
      {"UnknownTaskName", "task: F2,", "task: X2,",
       "p.yaml: line 7: tasks[2].task: expected a task F<l> or B<l> with l in 1..2"},
      {"TaskBeyondTheChain", "task: F2,", "task: F3,",
       "p.yaml: line 7: tasks[2].task: expected a task F<l> or B<l> with l in 1..2"},
      {"MissingTask", "  - {task: B2, device: gpu1, start: 2.5, shift: 1}\n", "",
       "p.yaml: line 5: tasks: missing B2: every F1..F2 and B1..B2 must appear"},
      {"DuplicateTask", "task: B2,", "task: F2,", "p.yaml: line 8: tasks[3].task: duplicate F2 (already tasks[2])"},
      {"NegativeOffset", "start: 1, shift: 0", "start: -1, shift: 0", "p.yaml: line 6: tasks[1].start: "},
      {"OffsetAtPeriod", "start: 1, shift: 0", "start: 4, shift: 0",
       "p.yaml: line 6: tasks[1].start: expected an offset in [0, period) = [0, 4), got '4'"},
      {"UnknownDevice", "device: gpu1, start: 1.5", "device: tpu1, start: 1.5",
       "p.yaml: line 7: tasks[2].device: unknown device 'tpu1' (expected one of: gpu0, gpu1, gpu2)"},
      {"ForwardAndBackwardApart", "task: B2, device: gpu1", "task: B2, device: gpu2",
       "p.yaml: line 8: tasks[3].device: B2 must run on the device of F2 (seed 000 eq. 4), gpu1, got gpu2"},
      {"FractionalShift", "start: 1, shift: 0", "start: 1, shift: 0.5",
       "p.yaml: line 6: tasks[1].shift: expected an integer in -1000000000..1000000000, got '0.5'"},
      // Shifts, copies and periods are bounded: sums of shifts must not overflow.
      {"ShiftAbove2To31", "start: 1, shift: 0", "start: 1, shift: 2147483648",
       "p.yaml: line 6: tasks[1].shift: expected an integer in -1000000000..1000000000, got '2147483648'"},
      {"ShiftBelowMinus2To31", "start: 1, shift: 0", "start: 1, shift: -2147483648",
       "p.yaml: line 6: tasks[1].shift: expected an integer in -1000000000..1000000000, got '-2147483648'"},
      {"ShiftJustOutOfRange", "start: 1, shift: 0", "start: 1, shift: 1000000001",
       "p.yaml: line 6: tasks[1].shift: expected an integer in -1000000000..1000000000, got '1000000001'"},
      {"TransferShiftAbove2To31", "after: F1, start: 1, shift: 1", "after: F1, start: 1, shift: 2147483647",
       "p.yaml: line 10: transfers[0].shift: expected an integer in -1000000000..1000000000, got '2147483647'"},
      {"TooManyCopies", "copies: 1\n", "copies: 1000001\n",
       "p.yaml: line 2: copies: expected an integer in 1..1000000, got '1000001'"},
      {"HugePeriod", "period: 4\n", "period: 1e201\n",
       "p.yaml: line 1: period: expected a positive period of at most 1e200 s, got '1e201'"},
      {"CopyOutOfRange", "copy: 0, device: gpu0", "copy: 1, device: gpu0",
       "p.yaml: line 5: tasks[0].copy: expected an integer in 0..0, got '1'"},
      {"TransferAfterLastTask", "after: B2, copy: 0", "after: B1, copy: 0",
       "p.yaml: line 11: transfers[1].after: B1 is the last task: it sends nothing"},
      {"TransferOnOneDevice", "after: B2, copy: 0", "after: F2, copy: 0",
       "p.yaml: line 11: transfers[1].after: F2 and its successor both run on gpu1: no transfer"},
      {"DuplicateTransfer", "after: B2, copy: 0", "after: F1, copy: 0",
       "p.yaml: line 11: transfers[1].after: duplicate transfer after F1 (already transfers[0])"},
      {"ShiftTooSmall", "start: 1.5, shift: 1}", "start: 1.5, shift: 0}",
       "p.yaml: line 7: tasks[2].shift: expected at least 1: F2 ends at 2.5 and its consumer starts at 2.5 with shift "
       "1 "
       "(seed 000 Definition 1), got 0"},
      {"TransferShiftTooSmall", "after: F1, start: 1, shift: 1", "after: F1, start: 1, shift: 0",
       "p.yaml: line 10: transfers[0].shift: expected at least 1: the transfer after F1 ends at 1.5"},
      {"ComputedShiftDisagrees", "shift: 1}\n  - {after: B2, copy: 0, start: 0.5, shift: 0}\n", "shift: 2}\n",
       "p.yaml: line 10: transfers[0].shift: expected 1 (the smallest valid shift: shifts are computed because some "
       "shift or transfer is missing; give them all to choose larger ones), got 2"},
  };
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadPatternFile : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadPatternFile, InputErrorNamesTheField) {
  const BadCase& c = GetParam();
  const std::string error = load_error(replace(kValid, c.from, c.to));
  EXPECT_EQ(error.substr(0, c.expected.size()), c.expected) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadPatternFile, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(PatternYaml, ComputesShiftsAndTransfersWhenAbsent) {
  std::string text = kValid;
  for (const char* s : {", shift: 1}", ", shift: 0}"})
    for (auto at = text.find(s); at != std::string::npos; at = text.find(s))
      text.replace(at, std::string(s).size(), "}");
  text = text.substr(0, text.find("transfers:"));
  const Pattern p = load_pattern_text(text, "p.yaml", two_layers(), pattern_platform(3));
  expect_same(p, load_pattern_text(kValid, "p.yaml", two_layers(), pattern_platform(3)));
}

// A period far shorter than the tasks: computed shifts would pass any int
// (each step lags ~1e12 periods); the file is refused, not overflowed.
TEST(PatternYaml, ShiftsBeyondTheRangeAreRefused) {
  const std::string text =
      "period: 1e-12\ntasks:\n  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 0}\n"
      "  - {task: F2, device: gpu1, start: 0}\n  - {task: B2, device: gpu1, start: 0}\n";
  EXPECT_EQ(load_error(text),
            "p.yaml: tasks: B2: its smallest valid shift exceeds 1000000000 (tasks or transfers far longer than the "
            "period)");
  // Given shifts at the ends of the range are read as they are, and their
  // differences (event graph tokens, stash counts) stay within int.
  std::string extreme = kValid;
  extreme.replace(extreme.find("start: 0, shift: 1}"), 19, "start: 0, shift: 1000000000}");
  extreme.replace(extreme.find("start: 1, shift: 0}"), 19, "start: 1, shift: -1000000000}");
  const Pattern p = load_pattern_text(extreme, "p.yaml", two_layers(), pattern_platform(3));
  EXPECT_EQ(p.ops[0].shift, 1000000000);
  EXPECT_EQ(p.ops[1].shift, -1000000000);
  EXPECT_TRUE(
      validate_pattern(p, pattern_timing(p, two_layers(), pattern_platform(3)), pattern_platform(3), two_layers())
          .empty());
}

TEST(PatternYaml, StructureErrors) {
  EXPECT_EQ(load_error("period: 4\ntasks: []\n"),
            "p.yaml: line 2: tasks: expected a non-empty list of tasks, got an empty list");
  EXPECT_EQ(load_error("period: 4\ntasks:\n  - F1\n"),
            "p.yaml: line 3: tasks[0]: expected a map {task: F1, device: NAME, start: SECONDS}, got 'F1'");
  EXPECT_EQ(load_error("- 1\n"),
            "p.yaml: line 1: document: expected a map with period, tasks and optionally copies, weights, links, "
            "transfers, got a list");
  EXPECT_EQ(load_error("period: 4\ntasks:\n  - {task: F1, start: 0}\n"),
            "p.yaml: line 3: tasks[0].device: missing required field: expected a device name");
}

TEST(PatternYaml, OverlapsAreRejected) {
  const std::string text =
      "period: 4\ntasks:\n"
      "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 0.5}\n"
      "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n";
  EXPECT_EQ(load_error(text),
            "p.yaml: tasks: on gpu0, F1 (start 0, lasts 1) overlaps B1 (start 0.5) (seed 000 Definition 1: exclusive "
            "access)");
}

TEST(PatternYaml, LayerCountMustMatchTheWorkload) {
  try {
    load_pattern_text(kValid, "p.yaml", chain_workload({1, 1, 1}, {2, 2, 2}, {0, 0, 0}), pattern_platform(3));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "p.yaml: line 5: tasks: missing F3: every F1..F3 and B1..B3 must appear");
  }
}

TEST(PatternYaml, MissingFile) {
  EXPECT_THROW(read_pattern_yaml(temp_path("absent.pattern.yaml"), pattern_platform(2)), InputError);
}

// A workload naming a pattern file next to it.
std::string pattern_workload(const std::string& schedule, int microbatches = 5, int iterations = 2) {
  write_file("two.pattern.yaml", kValid);
  return write_file("two.yaml", "microbatches: " + std::to_string(microbatches) +
                                    "\niterations: " + std::to_string(iterations) +
                                    "\nlayers:\n  - {forward: 1s, backward: 2s, activation: 500MB}\n"
                                    "  - {forward: 1s, backward: 2s, activation: 500MB}\nschedule: " +
                                    schedule + "\n");
}

std::string registry_error(const std::string& schedule) {
  try {
    generate(load_workload(pattern_workload(schedule)), pattern_platform(2));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PatternRegistry, UnrollsThePatternFileForAllMicrobatches) {
  const Workload w = load_workload(pattern_workload("{name: pattern, file: two.pattern.yaml}"));
  const TaskGraph g = generate(w, pattern_platform(2)).graph;
  EXPECT_EQ(g.size(), 10u * (4 + 2));  // 5 micro-batches x 2 iterations, 4 ops and 2 transfers each
  int iterations = 0;
  for (const Task& t : g.tasks()) iterations = std::max(iterations, t.iteration + 1);
  EXPECT_EQ(iterations, 2);
}

// memory_policy: lifetime by default (no static buffers; each transfer
// allocates on its receiver and frees on its sender), seed000 on request
// (a 500 MB send and receive buffer per edge end: one boundary each way).
TEST(PatternRegistry, MemoryPolicy) {
  const Platform p = pattern_platform(2);
  const GeneratedSchedule lifetime =
      generate(load_workload(pattern_workload("{name: pattern, file: two.pattern.yaml}")), p);
  ASSERT_TRUE(lifetime.pattern);
  EXPECT_EQ(lifetime.pattern->buffers, BufferPolicy::Lifetime);
  EXPECT_EQ(static_comm_buffers(lifetime.graph), 0);
  const GeneratedSchedule paper =
      generate(load_workload(pattern_workload("{name: pattern, file: two.pattern.yaml, memory_policy: seed000}")), p);
  EXPECT_EQ(paper.pattern->buffers, BufferPolicy::Seed000);
  EXPECT_EQ(static_comm_buffers(paper.graph), 4 * 500e6);
  EXPECT_NE(registry_error("{name: pattern, file: two.pattern.yaml, memory_policy: both}")
                .find("two.yaml: schedule.memory_policy: expected lifetime or seed000, got 'both'"),
            std::string::npos);
}

TEST(PatternRegistry, ParameterErrors) {
  EXPECT_NE(registry_error("{name: pattern}").find("two.yaml: schedule.file: missing"), std::string::npos);
  EXPECT_NE(
      registry_error("{name: pattern, file: two.pattern.yaml, chunks: 2}").find("two.yaml: schedule.chunks: unknown"),
      std::string::npos);
  EXPECT_NE(registry_error("{name: pattern, file: nope.yaml}").find("nope.yaml: cannot open"), std::string::npos);
  Workload w = load_workload(pattern_workload("{name: pattern, file: two.pattern.yaml}"));
  w.placement.stages = 2;
  EXPECT_THROW(load_workload_pattern(w, pattern_platform(2)), InputError);
}

TEST(PatternRegistry, CliRunsAPatternWorkload) {
  const std::string platform = complete_platform(2);
  const CliResult r = run_pipesim("run " + platform + " " +
                                  pattern_workload("{name: pattern, file: two.pattern.yaml}", 40, 1) + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace pipesim
