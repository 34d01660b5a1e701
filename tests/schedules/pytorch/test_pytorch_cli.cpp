// PyTorch schedules through the command line: running a compute CSV
// (schedule csv), --export-orders and its round trip, and bad input.
#include <filesystem>
#include <regex>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

const std::string kZb1p = kRoot + "tests/data/pytorch/zb1p_2rank_2stagep_compute.csv";

// A report without KEYS, fields in the order written: two runs' reports compared but for those.
nlohmann::ordered_json without(const std::string& json, std::initializer_list<const char*> keys) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(json);
  for (const char* key : keys) j.erase(key);
  return j;
}

// Unit costs (F 1 s, B 2 s = I 1 s + W 1 s), no activations: free transfers.
const std::string kUnitLayers = "layers:\n  - {forward: 1s, backward: 2s, activation: 0B, repeat: 4}\n";

std::string line_of(const std::string& out, const std::string& key) {
  const std::string text = "\n" + out;
  const std::size_t at = text.find("\n" + key);
  return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The zb1p CSV beside its workload, which names it relatively and leaves the
// micro-batch count out; run from another directory.
TEST(PytorchCli, RunsPyTorchsZb1pCsv) {
  write_file("zb1p.csv", read_text(kZb1p));
  const std::string workload = write_file("zb1p.yaml", kUnitLayers + "schedule: {name: csv, file: zb1p.csv}\n");
  const std::string platform = write_file("p2.xml", complete_platform_xml(2));
  const std::string json = temp_path("zb1p.json");
  const CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json, "", "/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(line_of(r.out, "schedule"), "schedule              csv");
  EXPECT_EQ(line_of(r.out, "micro-batches"), "micro-batches         8");
  // Each rank computes 8 micro-batches x 2 stages x (F + I + W) = 48 s;
  // rank 1 waits 1 s for the first forward, and everything else overlaps.
  EXPECT_EQ(line_of(r.out, "makespan"), "makespan              49.00 s");
  EXPECT_EQ(line_of(r.out, "  gpu0"), "  gpu0     48  48.00 s  1.00 s   2.0 %          0 B  1.00 TiB  -");
  EXPECT_EQ(read_json(json).at("makespan"), 49);
}

// PyTorch's DualPipeV artifact, run as a CSV (micro-batches from the file),
// is the dualpipev schedule on 4 devices with 10 micro-batches: the same
// JSON but for the schedule's name, and 63 s with unit costs and free
// transfers (busy 2·10·3 s, plus the V's ramp of 3 forwards).
TEST(PytorchCli, DualPipeVCsvRunsAsTheGenerator) {
  const std::string layers =
      "layers:\n  - {forward: 1s, backward: 2s, backward_input: 1s, backward_weight: 1s, activation: 0B, repeat: 8}\n";
  write_file("dualpipev_4rank_10mb.csv", read_text(kRoot + "tests/data/pytorch/dualpipev_4rank_10mb.csv"));
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  const std::string a = temp_path("dualpipev-generated.json"), b = temp_path("dualpipev-csv.json");
  CliResult r = run_pipesim(
      "run " + platform + " " +
      write_file("dualpipev-generated.yaml", "microbatches: 10\n" + layers + "schedule: dualpipev\n") + " --json " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_of(r.out, "schedule"), "schedule              dualpipev");
  EXPECT_EQ(line_of(r.out, "makespan"), "makespan              63.00 s");
  EXPECT_EQ(line_of(r.out, "  gpu3"), "  gpu3     44  60.00 s  3.00 s   4.8 %          0 B  80.00 GiB  -");
  r = run_pipesim("run " + platform + " " +
                  write_file("dualpipev-csv.yaml", layers + "schedule: {name: csv, file: dualpipev_4rank_10mb.csv}\n") +
                  " --quiet --json " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(without(read_text(a), {"schedule"}), without(read_text(b), {"schedule"}));
  // The export writes the pairs back as PyTorch's cells.
  const std::string exported = temp_path("dualpipev-export.csv");
  r = run_pipesim("run " + platform + " " + temp_path("dualpipev-csv.yaml") + " --quiet --export-orders " + exported);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(exported), read_text(kRoot + "tests/data/pytorch/dualpipev_4rank_10mb.csv"));
}

// A CSV row on host memory (kind host: rank 8 of the A100 platform) is one
// error line, for run (as generate() refuses any schedule's compute there)
// and for validate, which does not go through generate().
TEST(PytorchCli, ARankOnHostMemoryIsRefused) {
  std::string orders;
  for (int s = 0; s < 9; ++s) orders += std::to_string(s) + "F0," + std::to_string(s) + "B0\n";
  const std::string csv = write_file("host-rank.csv", orders);
  const std::string platform = kRoot + "platforms/a100-8gpu-pcie-host.xml";
  const std::string message = "pipesim: error: " + csv +
                              ": line 9 (rank 8): rank 8 is 'host-memory', which is host memory (kind host) and runs "
                              "no stage; leave its row empty or put the compute devices first in the platform\n";
  const std::string layers = "layers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 9}\n";
  CliResult r = run_pipesim("run " + platform + " " +
                            write_file("host-rank.yaml", layers + "schedule: {name: csv, file: " + csv + "}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, message);
  r = run_pipesim("validate " + platform + " " + write_file("host-rank-validate.yaml", "microbatches: 1\n" + layers) +
                  " " + csv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, message);
}

// An alias (PyTorch's class name, any case) reports its schedule's canonical name.
TEST(PytorchCli, AnAliasReportsTheCanonicalName) {
  const std::string json = temp_path("alias.json");
  const CliResult r =
      run_pipesim("run " + write_file("p2.xml", complete_platform_xml(2)) + " " +
                  write_file("alias.yaml", "microbatches: 4\n" + kUnitLayers + "schedule: ScheduleZBVZeroBubble\n") +
                  " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_of(r.out, "schedule"), "schedule              zbv");
  EXPECT_EQ(read_json(json).at("schedule"), "zbv");
}

// A pair in the comms format, derived by hand (F 1 s, B 2 s, free
// transfers): gpu1 runs 1F0 [1,2], then (1F1;1B0) from 2: 1F1 ends at 4,
// 1B0 at 5 (shared speed), 1B1 [5,7]; gpu0's 0B0 [5,7], 0B1 [7,9]. With
// comm_step 1s every SEND and RECV takes a step: the pair starts at 4 and
// ends at 7, and gpu0 ends with RECV_B1 [10,11], 0B1 [11,13].
TEST(PytorchCli, OverlappedPairInTheCommsFormat) {
  write_file("pair-comms.csv",
             "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
             "1RECV_F0,1F0,1RECV_F1,(1F1;1B0)OVERLAP_F_B,1SEND_B0,1B1,1SEND_B1\n");
  const std::string layers = "layers:\n  - {forward: 1s, backward: 2s, activation: 0B, repeat: 2}\n";
  const std::string platform = write_file("p2.xml", complete_platform_xml(2));
  for (const auto& [step, makespan] :
       {std::pair<std::string, std::string>{"", "9.00 s"}, {", comm_step: 1s", "13.00 s"}}) {
    const CliResult r = run_pipesim(
        "run " + platform + " " +
        write_file("pair-comms.yaml", layers + "schedule: {name: csv, file: pair-comms.csv" + step + "}\n"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_of(r.out, "makespan"), "makespan              " + makespan) << step;
  }
}

// validate runs the CSV and reports the same makespan and bubbles beside the verdict.
TEST(PytorchCli, ValidateReportsTheSimulatedMakespanAndBubbles) {
  const std::string workload = write_file("zb1p-validate.yaml", "microbatches: 8\n" + kUnitLayers);
  const std::string json = temp_path("validate.json");
  const CliResult r = run_pipesim("validate " + write_file("p2.xml", complete_platform_xml(2)) + " " + workload + " " +
                                  kZb1p + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "simulated: makespan 49.0 s; bubbles gpu0 2.0 %, gpu1 2.0 %\nVALID\n");
  EXPECT_EQ(
      read_text(json),
      "{\n  \"verdict\": \"VALID\",\n  \"violations\": [],\n  \"simulated\": {\n    \"makespan\": 49,\n"
      "    \"bubbles\": {\n      \"gpu0\": 0.0204081632653061,\n      \"gpu1\": 0.0204081632653061\n    }\n  }\n}\n");
}

// The per-layer split costs are used by I and W: with I 1.5 s and W 0.5 s,
// stage 0's I waits for stage 1's: 1 (F0) + 1 (F1) + 1.5 (I1) + 1.5 (I0) +
// 0.5 (W0) = 5.5 s (5 s with the default halves).
TEST(PytorchCli, CsvRunUsesTheLayersSplitCosts) {
  write_file("split.csv", "0F0,0I0,0W0\n1F0,1I0,1W0\n");
  for (const char* split : {"backward_input: 1.5s, backward_weight: 0.5s, ", ""}) {
    const std::string workload =
        write_file("split.yaml", std::string("layers:\n  - {forward: 1s, backward: 2s, ") + split +
                                     "activation: 0B, repeat: 2}\nschedule: {name: csv, file: split.csv}\n");
    const CliResult r = run_pipesim("run " + write_file("p2.xml", complete_platform_xml(2)) + " " + workload);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(line_of(r.out, "makespan"), *split ? "makespan              5.50 s" : "makespan              5.00 s");
  }
}

// PyTorch's comms lowering of the same schedule runs in the same time: its
// SEND and RECV cells are checked, the transfers follow from the devices.
TEST(PytorchCli, Zb1pComputeAndCommsCsvsTakeTheSameTime) {
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  std::string makespan[2];
  int i = 0;
  for (const char* format : {"compute", "comms"}) {
    const std::string csv = std::string("zb1p_2rank_2stagep_") + format + ".csv";
    write_file(csv, read_text(kRoot + "tests/data/pytorch/" + csv));
    const std::string workload =
        write_file(std::string("zb1p-") + format + ".yaml",
                   "layers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, weights: 1GiB, repeat: 4}\n"
                   "schedule: {name: csv, file: " +
                       csv + "}\n");
    const CliResult r = run_pipesim("run " + platform + " " + workload);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    makespan[i++] = line_of(r.out, "makespan");
  }
  EXPECT_EQ(makespan[0], "makespan              49.35 ms");
  EXPECT_EQ(makespan[1], makespan[0]);
}

// PyTorch's test of this schedule dry-runs the comms CSV with every action,
// SEND and RECV included, taking one step on its rank (_simulate_comms_compute)
// and expects 113 steps. With comm_step: 1s and every op 1 s (B too: the
// merged I+W is one step), the simulated makespan is that count. The
// exported orders are the compute ops without the sends and receives.
TEST(PytorchCli, Zb1pCommsCsvTakesPyTorchs113Steps) {
  write_file("zb1p_2rank_2stagep_comms.csv", read_text(kRoot + "tests/data/pytorch/zb1p_2rank_2stagep_comms.csv"));
  const std::string workload = write_file(
      "steps.yaml",
      "layers:\n  - {forward: 1s, backward: 1s, backward_input: 1s, backward_weight: 1s, activation: 0B, repeat: 4}\n"
      "schedule: {name: csv, file: zb1p_2rank_2stagep_comms.csv, comm_step: 1s}\n");
  const std::string csv = temp_path("steps-export.csv");
  const CliResult r =
      run_pipesim("run " + write_file("p2.xml", complete_platform_xml(2)) + " " + workload + " --export-orders " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_of(r.out, "makespan"), "makespan              113.00 s");
  // Rank 0: 32 compute ops (Bs merged) and 48 sends and receives; rank 1: 48 and 48.
  EXPECT_EQ(line_of(r.out, "  gpu0"), "  gpu0     80  80.00 s  33.00 s  29.2 %          0 B  1.00 TiB  -");
  EXPECT_EQ(line_of(r.out, "  gpu1"), "  gpu1     96  96.00 s  17.00 s  15.0 %          0 B  1.00 TiB  -");
  const std::string exported = read_text(csv);
  EXPECT_EQ(exported.find("SEND"), std::string::npos);
  EXPECT_EQ(exported.substr(0, exported.find('\n')),
            "0F0,0F1,2F0,2F1,2B0,0F2,2B1,0F3,0B0,2F2,0B1,2F3,2B2,0F4,2B3,0F5,0B2,2F4,0B3,2F5,2B4,0F6,2B5,0F7,0B4,2F6,"
            "0B5,2F7,2B6,2B7,0B6,0B7");
  // Without comm_step the sends and receives take no time: rank 1 computes
  // 8 x 2 x (F + I + W) = 48 s after waiting 1 s for the first forward.
  write_file("nosteps.yaml",
             "layers:\n  - {forward: 1s, backward: 1s, backward_input: 1s, backward_weight: 1s, "
             "activation: 0B, repeat: 4}\nschedule: {name: csv, file: zb1p_2rank_2stagep_comms.csv}\n");
  const CliResult plain =
      run_pipesim("run " + write_file("p2.xml", complete_platform_xml(2)) + " " + temp_path("nosteps.yaml"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(line_of(plain.out, "makespan"), "makespan              49.00 s");
}

// Run a generator with --export-orders, run the export as a CSV: the same
// JSON, but for the schedule's name (zb-h1 against csv) and, for the flush
// schedules, the pattern section (a CSV carries no pattern).
class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, ExportThenRunTheCsvGivesTheSameJson) {
  const std::string s = GetParam();
  const std::string layers =
      "microbatches: 8\niterations: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, weights: 1GiB, "
      "repeat: 8}\n";
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  const std::string a = temp_path(s + "-a.json"), b = temp_path(s + "-b.json"), csv = temp_path(s + ".csv");
  CliResult r = run_pipesim("run " + platform + " " + write_file(s + ".yaml", layers + "schedule: " + s + "\n") +
                            " --quiet --json " + a + " --export-orders " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string again = write_file(s + "-again.yaml", layers + "schedule: {name: csv, file: " + s + ".csv}\n");
  r = run_pipesim("run " + platform + " " + again + " --quiet --json " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = read_text(a), second = read_text(b);
  EXPECT_EQ(read_json(a).at("schedule"), s);
  EXPECT_EQ(read_json(b).at("schedule"), "csv");
  if (s == "1f1b" || s == "gpipe")
    EXPECT_EQ(without(first, {"schedule", "pattern"}), without(second, {"schedule", "pattern"}));
  else
    EXPECT_EQ(without(first, {"schedule"}), without(second, {"schedule"}));
}

INSTANTIATE_TEST_SUITE_P(Pytorch, RoundTrip,
                         ::testing::Values("interleaved-1f1b", "looped-bfs", "interleaved-zb", "zb-h1", "zb-h2", "zbv",
                                           "dualpipev", "1f1b", "gpipe"),
                         [](const auto& info) { return std::regex_replace(info.param, std::regex("-"), "_"); });

TEST(PytorchCli, ExportWritesPyTorchsCells) {
  const std::string csv = temp_path("zbh1.csv");
  const std::string workload = write_file("zbh1.yaml", "microbatches: 4\n" + kUnitLayers + "schedule: zb-h1\n");
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/complete-4.xml " + workload + " --quiet --export-orders " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(csv),
            "0F0,0F1,0F2,0F3,0I0,0W0,0I1,0W1,0I2,0W2,0I3,0W3\n"
            "1F0,1F1,1F2,1I0,1F3,1I1,1W0,1I2,1W1,1I3,1W2,1W3\n"
            "2F0,2F1,2I0,2F2,2I1,2F3,2I2,2W0,2I3,2W1,2W2,2W3\n"
            "3F0,3I0,3F1,3I1,3F2,3I2,3F3,3I3,3W0,3W1,3W2,3W3\n");
}

// A schedule whose stages live on several devices (DDP replicates them) has
// no PyTorch orders: refused, and no file written.
TEST(PytorchCli, ExportRefusesReplicatedStages) {
  const std::string csv = temp_path("ddp.csv");
  std::filesystem::remove(csv);
  const std::string workload =
      write_file("ddp.yaml", "microbatches: 4\n" + kUnitLayers + "schedule: {name: master, scheme: ddp}\n");
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/complete-4.xml " + workload + " --quiet --export-orders " + csv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "pipesim: error: " + workload +
                ": schedule: schedule 'master' cannot be exported as PyTorch orders: stage 0 runs on two devices "
                "(0 and 1); a PyTorch stage has one rank\n");
  EXPECT_FALSE(std::filesystem::exists(csv));
}

// --- Bad input: one line on stderr, exit 2, nothing on stdout, no file -----

struct BadCase {
  std::string name;
  std::string csv;       // written as NAME.csv beside the workload ("" = none)
  std::string workload;  // the workload text
  std::string message;   // stderr after "pipesim: error: " (TMP = the temp folder)
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, OneLineExitTwo) {
  const BadCase c = GetParam();
  if (!c.csv.empty()) write_file(c.name + ".csv", c.csv);
  const std::string workload = write_file(c.name + ".yaml", c.workload);
  const std::string json = temp_path(c.name + ".json");
  std::filesystem::remove(json);
  const CliResult r = run_pipesim("run " + kRoot + "platforms/complete-4.xml " + workload + " --json " + json);
  const std::string tmp = std::filesystem::path(workload).parent_path().string();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: " + std::regex_replace(c.message, std::regex("TMP"), tmp) + "\n");
  EXPECT_FALSE(std::filesystem::exists(json));
}

const std::string kCsvWorkload(const std::string& name) {
  return "layers:\n  - {forward: 1s, backward: 2s, activation: 1MiB, repeat: 2}\nschedule: {name: csv, file: " + name +
         ".csv}\n";
}

INSTANTIATE_TEST_SUITE_P(
    Pytorch, BadInput,
    ::testing::Values(
        BadCase{"two_ranks", "0F0,0F1,1B0\n1F0,1F1,1B1,0B0,0B1\n", kCsvWorkload("two_ranks"),
                "TMP/two_ranks.csv: rows: stage 0 has ops on several ranks: gpu0 (rank 0), gpu1 (rank 1) (a stage's "
                "weights live on one device)"},
        BadCase{
            "unknown_action", "0F0,0X0\n", kCsvWorkload("unknown_action"),
            "TMP/unknown_action.csv: line 1 (rank 0), column 2: expected an op <stage><F|B|I|W><micro-batch> "
            "such as 2F0, 1I3, 0W1 or 3B2, an overlapped pair (aFm;bBn)OVERLAP_F_B (or SEND_F, RECV_F, SEND_B, RECV_B "
            "in the comms format), got '0X0'"},
        BadCase{
            "missing_backward", "0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n", kCsvWorkload("missing_backward"),
            "TMP/missing_backward.csv: rows: no backward (B, or I and W) of stage 0 for micro-batch 1 (micro-batches "
            "0..1: the workload gives no microbatches, so 2 = 1 + the largest micro-batch in "
            "TMP/missing_backward.csv)"},
        BadCase{
            "missing_microbatch", "0F0,0B0\n1F0,1B0\n", "microbatches: 3\n" + kCsvWorkload("missing_microbatch"),
            "TMP/missing_microbatch.csv: rows: no F of stage 0 for micro-batches 1..2 (the workload has micro-batches "
            "0..2)"},
        BadCase{
            "send_without_recv", "0F0,0SEND_F0,0RECV_B0,0B0\n1F0,1B0,1SEND_B0\n", kCsvWorkload("send_without_recv"),
            "TMP/send_without_recv.csv: rows: 0SEND_F0 on gpu0 (rank 0) at column 2 has no matching 1RECV_F0 on gpu1 "
            "(rank 1)"},
        BadCase{"overlap_two_devices", "0F0,(0F1;1B0)OVERLAP_F_B,0B0,0B1\n1F0,1F1,1B1\n",
                kCsvWorkload("overlap_two_devices"),
                "TMP/overlap_two_devices.csv: rows: (0F1;1B0)OVERLAP_F_B on gpu0 (rank 0) at column 2: stage 1 runs on "
                "gpu1 (rank 1) too, so the pair would run on two devices (an overlapped pair shares one device)"},
        BadCase{"overlap_backward_first", "0F0,(0B0;0F1)OVERLAP_F_B,0B1\n", kCsvWorkload("overlap_backward_first"),
                "TMP/overlap_backward_first.csv: line 1 (rank 0), column 2: an overlapped pair (aFm;bBn)OVERLAP_F_B "
                "holds a forward, then a backward (B or I), got '(0B0;0F1)OVERLAP_F_B'"},
        BadCase{"overlap_three_ops", "(0F0;0B0;0F1)OVERLAP_F_B,0B1\n", kCsvWorkload("overlap_three_ops"),
                "TMP/overlap_three_ops.csv: line 1 (rank 0), column 1: expected an op <stage><F|B|I|W><micro-batch> "
                "such as 2F0, 1I3, 0W1 or 3B2, an overlapped pair (aFm;bBn)OVERLAP_F_B (or SEND_F, RECV_F, SEND_B, "
                "RECV_B in the comms format), got '0B0;0F1'"},
        BadCase{"dualpipev_few_microbatches", "",
                "microbatches: 7\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB, repeat: 8}\n"
                "schedule: ScheduleDualPipeV\n",
                "TMP/dualpipev_few_microbatches.yaml: microbatches: DualPipeV needs at least as many micro-batches as "
                "stages (8), got 7"},
        BadCase{"no_file", "",
                "microbatches: 1\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB}\nschedule: {name: csv}\n",
                "TMP/no_file.yaml: schedule.file: expected the path of a PyTorch compute CSV (schedule: {name: csv, "
                "file: orders.csv})"},
        BadCase{"no_microbatches", "", "layers:\n  - {forward: 1s, backward: 2s, activation: 1MiB}\nschedule: zbv\n",
                "TMP/no_microbatches.yaml: microbatches: missing required field: expected an integer >= 1"},
        BadCase{"rounds", "",
                "microbatches: 9\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB, repeat: 8}\n"
                "schedule: interleaved-1f1b\n",
                "TMP/rounds.yaml: microbatches: the micro-batch count must be a multiple of max(1, microbatches / "
                "ranks) = 2 (PyTorch's rounds), got 9"},
        BadCase{"virtual_stages", "",
                "microbatches: 4\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB, repeat: 8}\n"
                "schedule: {name: interleaved-1f1b, virtual_stages: 0}\n",
                "TMP/virtual_stages.yaml: schedule.virtual_stages: expected a positive integer, got '0'"},
        BadCase{"odd_stages", "",
                "microbatches: 4\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB, repeat: 8}\n"
                "schedule: zbv\nplacement: {stages: 3}\n",
                "TMP/odd_stages.yaml: placement: 3 stages, but schedule 'zbv' puts 2 stages on each device "
                "(expected a multiple of 2)"},
        BadCase{"zbv_one_layer", "",
                "microbatches: 4\nlayers:\n  - {forward: 1s, backward: 2s, activation: 1MiB}\nschedule: zbv\n",
                "TMP/zbv_one_layer.yaml: layers: schedule 'zbv' puts 2 stages on each device, so it needs at least "
                "2 layers, got 1"},
        BadCase{"half_split", "",
                "microbatches: 4\nlayers:\n  - {forward: 1s, backward: 2s, backward_input: 1s, activation: 1MiB}\n"
                "schedule: zb-h1\n",
                "TMP/half_split.yaml: line 3: layers[0].backward_weight: expected a duration like '3ms' or a flop "
                "count like '2Tf' beside backward_input (give both halves of the split backward or neither)"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace pipesim
