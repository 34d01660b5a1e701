// pipesim validate through the binary: crafted bad schedules (patterns and
// CSV orders) each with a planted violation, valid schedules, and malformed
// files (exit 2, one line, nothing written).
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "patterns/pattern_yaml.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "sim/format.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kZb1p = std::string(PIPESIM_SOURCE_DIR) + "/tests/data/pytorch/zb1p_2rank_2stagep_compute.csv";

// docs/pattern-format.md's example workload and pattern (valid, period 4 s).
const std::string kPatternWorkload =
    "microbatches: 8\nreference_speed: 1Tf\nlayers:\n"
    "  - {forward: 1s, backward: 2s, activation: 500MB, repeat: 2}\n";
const std::string kPatternHead = "period: 4\nweights: flush\ntasks:\n";
// Seed 000's link model: both directions of gpu0-gpu1 are one resource.
const std::string kPairHead = "period: 4\nweights: flush\nlinks: pair\ntasks:\n";
const std::string kExampleTasks =
    "  - {task: F1, device: gpu0, start: 0, shift: 1}\n"
    "  - {task: B1, device: gpu0, start: 1, shift: 0}\n"
    "  - {task: F2, device: gpu1, start: 1.5, shift: 1}\n"
    "  - {task: B2, device: gpu1, start: 2.5, shift: 1}\n";
const std::string kExample = kPatternHead + kExampleTasks +
                             "transfers:\n  - {after: F1, start: 1, shift: 1}\n  - {after: B2, start: 0.5, shift: 0}\n";
// B1 moved to 0.5, over F1 [0, 1); shifts and transfers computed.
const std::string kOverlapping = kPatternHead +
                                 "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 0.5}\n"
                                 "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n";
const std::string kOneLayer =
    "microbatches: 8\nreference_speed: 1Tf\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MB}\n";
const std::string kTwoLayers =
    "microbatches: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, weights: 16MiB, repeat: 2}\n";
const std::string kFourLayers =
    "microbatches: 8\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, weights: 16MiB, repeat: 4}\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

struct Files {
  std::string platform, workload, schedule;
};

Files write_inputs(const std::string& name, int devices, const std::string& memory, const std::string& workload,
                   const std::string& schedule_file, const std::string& schedule) {
  Files f{write_file(name + ".xml", complete_platform_xml(devices, "1GBps", "0s", "1Tf", memory)),
          write_file(name + ".w.yaml", workload), schedule_file};
  if (!schedule.empty()) f.schedule = write_file(schedule_file, schedule);
  return f;
}

CliResult validate(const Files& f, const std::string& extra = "") {
  return run_pipesim("validate " + f.platform + " " + f.workload + " " + f.schedule + extra);
}

struct BadSchedule {
  const char* name;
  int devices;
  std::string memory;
  std::string workload;
  std::string file;                    // its name decides the format
  std::string schedule;                // empty: file is a path as is
  std::vector<std::string> kinds;      // every kind printed, in order of first appearance
  std::vector<std::string> fragments;  // each on some line of stdout
};

std::vector<BadSchedule> bad_schedules() {
  return {
      {"pattern_device_overlap",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       kOverlapping,
       {"overlap"},
       {"overlap: device gpu0: F1 [0, 1) and B1 [0.5, 2.5) (mod period 4)"}},
      {"pattern_link_overlap",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       kPairHead + "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n"
                   "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n"
                   "transfers:\n  - {after: F1, start: 0.3}\n  - {after: B2, start: 0.5}\n",
       {"overlap"},
       {"overlap: link gpu0-gpu1: the transfer after F1 [0.3, 0.8) and the transfer after B2 [0.5, 1) (mod period 4)"}},
      {"pattern_shift_not_smaller",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       replace(replace(kExample, "{after: B2, start: 0.5, shift: 0}", "{after: B2, start: 0.5, shift: 1}"),
               kPatternHead, kPairHead),
       {"shift", "deadlock"},
       {"shift: the transfer after B2 (shift 1) starts at 0.5, before B2 (shift 1) ends at 4.5, but does not have a "
        "smaller shift (Definition 1)"}},
      {"pattern_shift_larger",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       replace(replace(replace(replace(kExample, kPatternHead, kPairHead), "F2, device: gpu1, start: 1.5, shift: 1",
                               "F2, device: gpu1, start: 1.5, shift: 2"),
                       "B2, device: gpu1, start: 2.5, shift: 1", "B2, device: gpu1, start: 2.5, shift: 2"),
               "{after: B2, start: 0.5, shift: 0}", "{after: B2, start: 0.5, shift: 1}"),
       {"shift", "deadlock"},
       {"shift: F2 (shift 2) has a larger shift than the transfer after F1 (shift 1), whose output it consumes"}},
      // The same two under the platform's links (SPLITDUPLEX: the two
      // directions are two resources): the shift violations stay, the
      // deadlock went through seed 000's one-resource link cycle.
      {"pattern_shift_not_smaller_duplex",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       replace(kExample, "{after: B2, start: 0.5, shift: 0}", "{after: B2, start: 0.5, shift: 1}"),
       {"shift"},
       {"shift: the transfer after B2 (shift 1) starts at 0.5, before B2 (shift 1) ends at 4.5, but does not have a "
        "smaller shift (Definition 1)"}},
      {"pattern_shift_larger_duplex",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       replace(replace(replace(kExample, "F2, device: gpu1, start: 1.5, shift: 1",
                               "F2, device: gpu1, start: 1.5, shift: 2"),
                       "B2, device: gpu1, start: 2.5, shift: 1", "B2, device: gpu1, start: 2.5, shift: 2"),
               "{after: B2, start: 0.5, shift: 0}", "{after: B2, start: 0.5, shift: 1}"),
       {"shift"},
       {"shift: F2 (shift 2) has a larger shift than the transfer after F1 (shift 1), whose output it consumes"}},
      {"pattern_given_shift_differs",
       2,
       "1TiB",
       kPatternWorkload,
       "p.yaml",
       kPatternHead + "  - {task: F1, device: gpu0, start: 0, shift: 2}\n  - {task: B1, device: gpu0, start: 1}\n"
                      "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n",
       {"shift"},
       {"shift: line 4: tasks[0].shift: F1 is given shift 2, but shifts are computed (some shift or transfer is "
        "missing) and its smallest valid shift is 1"}},
      {"pattern_deadlock",
       1,
       "1TiB",
       kOneLayer,
       "p.yaml",
       "period: 3\ntasks:\n  - {task: F1, device: gpu0, start: 2, shift: 0}\n"
       "  - {task: B1, device: gpu0, start: 0, shift: 0}\n",
       {"shift", "deadlock"},
       {"shift: B1 (shift 0) starts at 0, before F1 (shift 0) ends at 3, but does not have a smaller shift",
        "deadlock: circular wait: ", "carries 0 tokens"}},
      {"pattern_memory",
       2,
       "1GB",
       kPatternWorkload,
       "p.yaml",
       kExample,
       {"memory"},
       // Lifetime buffers, the default (seed000: ValidateCli.MemoryPolicySeed000).
       {"memory: gpu1 at t=2.5 in the period (during B2, steady state) uses 1.86 GiB of 953.67 MiB (activations "
        "476.84 MiB, comm_buffers 1.40 GiB)"}},
      {"csv_cross_device_deadlock",
       2,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "0F0,0B0,0F1,0B1\n1F0,1F1,1B0,1B1\n",
       {"deadlock"},
       {"deadlock: 9 of 12 tasks never ran; waiting cycle: ",
        "forward stage 1 mb 1 (dev 1) waits (data) for "
        "transfer stage 0 mb 1 (dev 0->1)"}},
      {"csv_weight_before_input_gradient",
       2,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "0F0,0F1,0I0,0W0,0W1,0I1\n1F0,1I0,1F1,1I1,1W0,1W1\n",
       {"dependency", "deadlock"},
       {"dependency: gpu0 (rank 0) runs 0W1 at column 5 before 0I1 at column 6, which must run first",
        "backward_input stage 0 mb 1 (dev 0) waits (device order) for backward_weight stage 0 mb 1 (dev 0)"}},
      {"csv_two_stages_one_device",
       1,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "1F0,0F0,1B0,0B0,0F1,1F1,1B1,0B1\n",
       {"dependency", "deadlock"},
       {"dependency: gpu0 (rank 0) runs 1F0 at column 1 before 0F0 at column 2, whose output is its input"}},
      {"csv_memory",
       2,
       "100MiB",
       kFourLayers,
       kZb1p,
       "",
       {"memory"},
       {"memory: gpu0 at t=",
        "(start of 2F0) uses 128.00 MiB of 100.00 MiB (weights 32.00 MiB, activations 16.00 "
        "MiB, gradients 32.00 MiB, comm_buffers 48.00 MiB)",
        "memory: gpu1 at t="}},
      {"csv_missing_backward",
       2,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "0F0,0F1,0B0,0B1\n1F0,1B0,1F1\n",
       {"structure"},
       {"structure: no backward (B, or I and W) of stage 1 for micro-batch 1 (the workload has micro-batches 0..1)"}},
      {"csv_duplicate_op",
       2,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "0F0,0F1,0B0,0B1,0F1\n1F0,1B0,1F1,1B1\n",
       {"structure"},
       {"structure: 0F1 appears 2 times (gpu0 column 2, gpu0 column 5)"}},
      {"csv_stage_on_two_ranks",
       2,
       "1TiB",
       kTwoLayers,
       "o.csv",
       "0F0,0F1,0B0\n1F0,1B0,1F1,1B1,0B1\n",
       {"structure"},
       {"structure: stage 0 has ops on several ranks: gpu0 (rank 0), gpu1 (rank 1)"}},
  };
}

void PrintTo(const BadSchedule& c, std::ostream* os) { *os << c.name; }

class ValidateBad : public ::testing::TestWithParam<BadSchedule> {};

TEST_P(ValidateBad, ReportsThePlantedViolation) {
  const BadSchedule& c = GetParam();
  const Files f = write_inputs(c.name, c.devices, c.memory, c.workload, c.file, c.schedule);
  const CliResult r = validate(f);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> lines, kinds;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("simulated: ", 0) != 0) lines.push_back(line);  // a CSV run's makespan and bubbles
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(),
            "INVALID: " + std::to_string(lines.size() - 1) + (lines.size() == 2 ? " violation" : " violations"));
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string kind = lines[i].substr(0, lines[i].find(':'));
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  EXPECT_EQ(kinds, c.kinds) << r.out;
  for (const std::string& fragment : c.fragments)
    EXPECT_NE(r.out.find(fragment), std::string::npos) << fragment << "\n" << r.out;
}

INSTANTIATE_TEST_SUITE_P(Validate, ValidateBad, ::testing::ValuesIn(bad_schedules()),
                         [](const auto& info) { return std::string(info.param.name); });

// --memory-policy seed000: the same pattern with seed 000's static send and
// receive buffers needs 2.33 GiB on gpu1 where lifetime buffers need 1.86 GiB
// (both directions of the split-duplex link carry a transfer at once),
// and gpu0 no longer fits either; a
// policy that does not exist is refused.
TEST(ValidateCli, MemoryPolicySeed000) {
  const Files f = write_inputs("memory_policy", 2, "1GB", kPatternWorkload, "p.yaml", kExample);
  const CliResult r = validate(f, " --memory-policy seed000");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out,
            "memory: gpu0 at t=0 in the period (during F1, steady state) uses 1.40 GiB of 953.67 MiB (comm_buffers "
            "1.40 GiB)\n"
            "memory: gpu1 at t=2.5 in the period (during B2, steady state) uses 2.33 GiB of 953.67 MiB (activations "
            "476.84 MiB, comm_buffers 1.86 GiB)\nINVALID: 2 violations\n");
  const CliResult lifetime = validate(f, " --memory-policy lifetime");
  EXPECT_NE(lifetime.out.find("gpu1 at t=2.5 in the period (during B2, steady state) uses 1.86 GiB"), std::string::npos)
      << lifetime.out;
  const CliResult bad = validate(f, " --memory-policy static");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--memory-policy"), std::string::npos) << bad.err;
}

TEST(ValidateCli, JsonListsTheViolations) {
  const Files f = write_inputs("json", 2, "1TiB", kPatternWorkload, "j.yaml", kOverlapping);
  const std::string json = temp_path("violations.json");
  const CliResult r = validate(f, " --json " + json);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(read_text(json),
            "{\n"
            "  \"verdict\": \"INVALID\",\n"
            "  \"violations\": [\n"
            "    {\n"
            "      \"kind\": \"overlap\",\n"
            "      \"device\": \"gpu0\",\n"
            "      \"time\": 0.5,\n"
            "      \"message\": \"device gpu0: F1 [0, 1) and B1 [0.5, 2.5) (mod period 4)\"\n"
            "    }\n"
            "  ]\n"
            "}\n");
  const Files ok = write_inputs("json-ok", 2, "1TiB", kPatternWorkload, "ok.yaml", kExample);
  EXPECT_EQ(validate(ok, " --json " + json).exit_code, 0);
  EXPECT_EQ(read_text(json), "{\n  \"verdict\": \"VALID\",\n  \"violations\": []\n}\n");
}

// --- Valid schedules --------------------------------------------------------

// simulated: what a CSV's run measured, printed before the verdict.
void expect_valid(const Files& f, const std::string& simulated = "") {
  const CliResult r = validate(f);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, (simulated.empty() ? "" : "simulated: " + simulated + "\n") + "VALID\n");
  EXPECT_EQ(r.err, "");
}

TEST(ValidateValid, PyTorchZeroBubbleOnTwoDevices) {
  expect_valid(write_inputs("zb", 2, "1TiB", kFourLayers, kZb1p, ""),
               "makespan 797 ms; bubbles gpu0 94.0 %, gpu1 94.0 %");
}

TEST(ValidateValid, PyTorchZeroBubbleWithExplicitPlacement) {
  expect_valid(write_inputs("zb-placed", 2, "1TiB",
                            kFourLayers + "placement:\n  - {layers: 0, host: gpu0}\n  - {layers: 1, host: gpu1}\n"
                                          "  - {layers: 2, host: gpu0}\n  - {layers: 3, host: gpu1}\n",
                            kZb1p, ""),
               "makespan 797 ms; bubbles gpu0 94.0 %, gpu1 94.0 %");
}

std::string to_csv(const std::vector<StageSequence>& sequences) {
  std::string csv;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    for (std::size_t i = 0; i < sequences[s].size(); ++i)
      csv += (i ? "," : "") + std::to_string(s) + (sequences[s][i].kind == TaskKind::Forward ? "F" : "B") +
             std::to_string(sequences[s][i].microbatch);
    csv += "\n";
  }
  return csv;
}

TEST(ValidateValid, OneFOneBOrdersAsCsv) {
  expect_valid(write_inputs("1f1b", 4, "1TiB", kFourLayers, "1f1b.csv", to_csv(one_f_one_b_sequences(4, 8))),
               "makespan 471 ms; bubbles gpu0 94.9 %, gpu1 94.9 %, gpu2 94.9 %, gpu3 94.9 %");
}

TEST(ValidateValid, GPipeOrdersAsCsv) {
  expect_valid(write_inputs("gpipe", 4, "1TiB", kFourLayers, "gpipe.csv", to_csv(gpipe_sequences(4, 8))),
               "makespan 703 ms; bubbles gpu0 96.6 %, gpu1 96.6 %, gpu2 96.6 %, gpu3 96.6 %");
}

TEST(ValidateValid, PatternFormatExample) {
  expect_valid(write_inputs("example", 2, "1TiB", kPatternWorkload, "example.yaml", kExample));
}

// The pattern of the case pattern_link_overlap without `links: pair`: its two
// transfers overlap in opposite directions of gpu0-gpu1, a SPLITDUPLEX link
// (complete_platform_xml), which SimGrid runs at once: valid, as the
// validator follows the platform's links and not one resource per pair.
TEST(ValidateValid, OppositeDirectionsOverlapOnASplitDuplexLink) {
  expect_valid(write_inputs("duplex", 2, "1TiB", kPatternWorkload, "duplex.yaml",
                            kPatternHead +
                                "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n"
                                "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n"
                                "transfers:\n  - {after: F1, start: 0.3}\n  - {after: B2, start: 0.5}\n"));
}

// Random valid patterns (tests/patterns/test_pattern_fixtures.hpp), written as files.
class ValidateRandomPattern : public ::testing::TestWithParam<int> {};

TEST_P(ValidateRandomPattern, IsValid) {
  const int seed = GetParam();
  const int n = random_devices(seed);
  const Platform platform = pattern_platform(n, 0, 1e9);  // as complete_platform_xml(n, "1GBps", "0s")
  const RandomCase rc = random_case(seed, platform);
  std::ostringstream workload, pattern;
  workload << "microbatches: 4\nreference_speed: 1Tf\ninput: " << fmt::number(rc.workload.input, 17) << "\nlayers:\n";
  for (const Layer& l : rc.workload.layers)
    workload << "  - {forward: " << fmt::number(l.forward.value, 17)
             << ", backward: " << fmt::number(l.backward.value, 17) << ", activation: " << fmt::number(l.activation, 17)
             << ", weights: " << fmt::number(l.weights, 17) << "}\n";
  write_pattern_yaml(pattern, rc.pattern, platform);
  expect_valid(write_inputs("random", n, "1TiB", workload.str(), "random.yaml", pattern.str()));
}

INSTANTIATE_TEST_SUITE_P(Seeds, ValidateRandomPattern, ::testing::Range(0, 12));

// --- Bad input: exit 2 ------------------------------------------------------

struct Malformed {
  const char* name;
  std::string workload;
  std::string file;
  std::string schedule;  // empty: the file does not exist
  std::string fragment;
};

std::vector<Malformed> malformed() {
  const std::string two = "  - {task: F2, device: gpu1, start: 1.5}\n  - {task: B2, device: gpu1, start: 2.5}\n";
  return {
      {"bad_yaml", kPatternWorkload, "p.yaml", "period: [4\ntasks: x\n", "YAML syntax error"},
      {"unknown_task", kPatternWorkload, "p.yaml", kPatternHead + "  - {task: F3, device: gpu0, start: 0}\n",
       "tasks[0].task: expected a task F<l> or B<l>"},
      {"negative_offset", kPatternWorkload, "p.yaml",
       kPatternHead + "  - {task: F1, device: gpu0, start: -1}\n  - {task: B1, device: gpu0, start: 1}\n" + two,
       "tasks[0].start"},
      {"missing_device", kPatternWorkload, "p.yaml",
       kPatternHead + "  - {task: F1, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n" + two,
       "tasks[0].device: missing required field"},
      {"unknown_device", kPatternWorkload, "p.yaml",
       kPatternHead + "  - {task: F1, device: gpu7, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n" + two,
       "unknown device 'gpu7'"},
      {"missing_task", kPatternWorkload, "p.yaml",
       kPatternHead + "  - {task: F1, device: gpu0, start: 0}\n  - {task: B1, device: gpu0, start: 1}\n", "missing F2"},
      {"offset_past_period", kPatternWorkload, "p.yaml",
       kPatternHead + "  - {task: F1, device: gpu0, start: 4}\n  - {task: B1, device: gpu0, start: 1}\n" + two,
       "expected an offset in [0, period)"},
      {"missing_pattern", kPatternWorkload, "absent.yaml", "", "cannot open: no such file"},
      {"csv_overlap_f_b", kTwoLayers, "o.csv", "0F0,(1B0;0F1)OVERLAP_F_B\n", "holds a forward, then a backward"},
      {"csv_sharding", kTwoLayers, "o.csv", "0F0,0UNSHARD\n",
       "sharding actions (UNSHARD, RESHARD, REDUCE_GRAD) are not supported"},
      {"csv_garbage", kTwoLayers, "o.csv", "0F0,hello\n", "got 'hello'"},
      {"csv_too_many_ranks", kTwoLayers, "o.csv", "0F0\n1F0\n2F0\n", "3 rows (ranks), but the platform has 2 devices"},
      {"csv_more_stages_than_layers", kTwoLayers, "o.csv", "0F0,2F0\n1F0\n",
       "3 stages, but the workload has only 2 layers"},
      {"csv_missing", kTwoLayers, "absent.csv", "", "cannot open: no such file"},
      {"unknown_extension", kTwoLayers, "o.txt", "0F0\n",
       "expected a pattern (.yaml, .yml) or per-device orders (.csv)"},
  };
}

void PrintTo(const Malformed& c, std::ostream* os) { *os << c.name; }

class ValidateMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(ValidateMalformed, OneLineExitTwoNothingWritten) {
  const Malformed& c = GetParam();
  Files f = write_inputs(c.name, 2, "1TiB", c.workload, c.file, c.schedule);
  if (c.schedule.empty()) f.schedule = temp_path(c.file);
  const std::string json = temp_path("never.json");
  const CliResult r = validate(f, " --json " + json);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: " + f.schedule + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

INSTANTIATE_TEST_SUITE_P(Validate, ValidateMalformed, ::testing::ValuesIn(malformed()),
                         [](const auto& info) { return std::string(info.param.name); });

// A pattern file cut anywhere is read, or rejected with one line: never a crash.
class ValidateTruncated : public ::testing::TestWithParam<int> {};

TEST_P(ValidateTruncated, ExitsCleanly) {
  const std::string text = kExample.substr(0, kExample.size() * GetParam() / 12);
  const CliResult r = validate(write_inputs("cut", 2, "1TiB", kPatternWorkload, "cut.yaml", text + "\n"));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << r.exit_code;
  if (r.exit_code == 2) {
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Cuts, ValidateTruncated, ::testing::Range(0, 13));

TEST(ValidateCli, PlacementThatDisagreesWithTheOrders) {
  const Files f = write_inputs("placement", 2, "1TiB",
                               kTwoLayers + "placement:\n  - {layers: 0, host: gpu1}\n  - {layers: 1, host: gpu0}\n",
                               "o.csv", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
  const CliResult r = validate(f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: " + f.workload + ": placement[0].host: stage 0 runs on rank 0 (gpu0) in " +
                       f.schedule + ", got 'gpu1'\n");
}

TEST(ValidateCli, Usage) {
  CliResult r = run_pipesim("validate a.xml b.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: SCHEDULE is required; see 'pipesim validate --help'\n");
  r = run_pipesim("validate a.xml b.yaml c.yaml --colour");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: unknown option --colour; see 'pipesim validate --help'\n");
  r = run_pipesim("validate --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("usage: pipesim validate [options] PLATFORM.xml WORKLOAD.yaml SCHEDULE\n", 0), 0u) << r.out;
}

}  // namespace
}  // namespace pipesim
