// The error contract (docs/outputs.md#exit-codes) under seeded mutations of
// every input format: whatever the input, build/pipesim exits 0 or 1 with its
// outputs written whole, or 2 with exactly one line
// `pipesim: error: FILE: ...` naming an input (or `--cfg`), nothing on
// stdout and no output file; never a signal, never a hang.
//
// One parameterised test per format, one ctest test per case (so ctest runs
// them in parallel). Case `platform-17` is seeded with its format's seed base
// + 17 (1017); to run it alone:
//   build/pipesim_tests --gtest_filter=Fuzz/PlatformXml.KeepsTheErrorContract/17
// A failure prints the mutations, the command and its stderr, and keeps the
// case's directory.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_case.hpp"
#include "tests/traces/synthetic_execution_trace.hpp"
#include "tests/traces/synthetic_trace.hpp"

namespace pipesim::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr int kCasesPerFormat = 80;

// tiny.yaml with 4 micro-batches: every valid mutation runs in milliseconds.
std::string tiny_workload(const std::string& schedule = "1f1b") {
  return edited(edited(source("workloads/examples/tiny.yaml"), "microbatches: 8", "microbatches: 4"), "schedule: 1f1b",
                "schedule: " + schedule);
}

// One pipesim command of a case, with what it may write and whom an error
// line may blame (the file names given on its command line, or `--cfg`).
struct Invocation {
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> outputs;  // file, its first character
  std::vector<std::string> blame;
};

// The contract suite's case: SurfaceCase's folders, seeds and conclusion,
// with the stricter check of one `pipesim run`-like invocation (the error
// line must name a field, docs/outputs.md#error-lines).
class FuzzCase : public SurfaceCase {
 protected:
  // Runs the invocation; returns "" when it kept the contract, else why not.
  std::string run(const Invocation& call, int* exit_code = nullptr) {
    std::vector<std::string> argv = {PIPESIM_BINARY};
    argv.insert(argv.end(), call.args.begin(), call.args.end());
    const std::string out_file = dir_ + "/io/stdout", err_file = dir_ + "/io/stderr";
    const ChildResult r = run_child(argv, work(), out_file, err_file, kCaseTimeoutSeconds);
    const std::string out = read_file(out_file), err = read_file(err_file);
    if (exit_code) *exit_code = r.exit_code;
    std::string command = "cd " + work() + " &&";
    for (const auto& a : argv) command += " '" + a + "'";
    const std::string context = "\n  command: " + command + "\n  exit: " +
                                (r.timed_out ? std::string("timeout")
                                 : r.signal  ? "signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")"
                                             : std::to_string(r.exit_code)) +
                                "\n  stderr: " + shown(err, 600) + "\n  stdout: " + shown(out, 200);
    const std::string why = contract_violation(call, r, out, err);
    return why.empty() ? "" : why + context;
  }

  std::string contract_violation(const Invocation& call, const ChildResult& r, const std::string& out,
                                 const std::string& err) const {
    if (r.timed_out) return "hang: killed after " + std::to_string(kCaseTimeoutSeconds) + " s";
    if (r.signal) return "crash: killed by a signal";
    if (r.exit_code < 0 || r.exit_code > 2) return "exit status outside {0, 1, 2}";
    for (const auto& entry : fs::directory_iterator(work()))
      if (entry.path().filename().string().find(".tmp") != std::string::npos)
        return "temporary output file left behind: " + entry.path().filename().string();
    if (r.exit_code == 2) {
      const std::string prefix = "pipesim: error: ";
      if (std::count(err.begin(), err.end(), '\n') != 1 || err.back() != '\n')
        return "exit 2 without exactly one stderr line";
      if (err.rfind(prefix, 0) != 0) return "exit 2: the stderr line does not start with 'pipesim: error: '";
      std::string field;
      bool names_input = false;
      for (const auto& b : call.blame)
        if (err.rfind(prefix + b + ": ", 0) == 0) {
          names_input = true;
          field = named_field(err.substr(prefix.size() + b.size() + 2, err.size() - prefix.size() - b.size() - 3));
        }
      if (!names_input) return "exit 2: the error line names none of the inputs (internal error?)";
      if (field.empty()) return "exit 2: the error line names no field (FILE: [line N: ]FIELD: WHAT)";
      if (!out.empty()) return "exit 2 with output on stdout";
      for (const auto& [file, first] : call.outputs)
        if (fs::exists(work() + "/" + file)) return "exit 2 left the output file " + file + " behind";
      return "";
    }
    for (const auto& [file, first] : call.outputs) {
      const std::string text = read_file(work() + "/" + file);
      if (first.empty() && fs::is_regular_file(work() + "/" + file)) continue;  // any content
      const std::string last = first == "{" ? "}\n" : first == "[" ? "]\n" : "\n";
      const bool whole = text.rfind(first, 0) == 0 && text.size() >= last.size() + first.size() &&
                         text.compare(text.size() - last.size(), last.size(), last) == 0;
      if (!whole) return "exit " + std::to_string(r.exit_code) + " but " + file + " is missing or not whole";
    }
    return "";
  }
};

Invocation run_call(const std::string& platform, const std::string& workload, std::vector<std::string> extra = {},
                    std::vector<std::string> blame = {}) {
  Invocation call;
  call.args = {"run", platform, workload, "--json", "out.json", "--trace", "trace.json", "--quiet"};
  call.args.insert(call.args.end(), extra.begin(), extra.end());
  call.outputs = {{"out.json", "{"}, {"trace.json", "{"}};
  call.blame = blame.empty() ? std::vector<std::string>{platform, workload, "out.json", "trace.json"} : blame;
  return call;
}

// --- the harness itself ---------------------------------------------------

TEST(FuzzHarness, RngIsTheStandardEngine) {
  // The C++ standard fixes mt19937_64's 10000th output for the default seed.
  std::mt19937_64 reference;
  reference.discard(9999);
  EXPECT_EQ(reference(), 9981545732273789042ull);
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.below(1000), b.below(1000));
}

TEST(FuzzHarness, NumbersSkipNamesAndKeepTheirUnits) {
  const std::string text = "gpu0 link0-1 x=-3 12.5GBps 1e-3 v4.1";
  std::vector<Span> units;
  std::vector<std::string> found;
  for (const Span& n : numbers(text, &units)) found.push_back(text.substr(n.pos, n.len));
  EXPECT_EQ(found, (std::vector<std::string>{"-3", "12.5", "1e-3"}));
  EXPECT_EQ(text.substr(units[1].pos, units[1].len), "GBps");
}

TEST(FuzzHarness, MutationsAreReproducible) {
  const FormatRules rules = {{std::regex("[a-z]+: [0-9]+")}, std::regex("name: ([a-z]+)"), {"other"}, ""};
  const std::string base = "name: a\nsize: 10MiB\ncount: 3\n";
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    Rng r1(seed), r2(seed);
    std::string t1 = base, t2 = base;
    EXPECT_EQ(Mutator(r1, rules).mutate(t1), Mutator(r2, rules).mutate(t2));
    EXPECT_EQ(t1, t2);
  }
}

// What the contract check takes for a FIELD (docs/outputs.md#error-lines).
TEST(FuzzHarness, ErrorLinesMustNameAField) {
  for (const std::string named :
       {"line 4: layers[0].backward: expected a duration", "schedule.k: expected a positive integer",
        "--json: is a directory", "network/optim:Bogus: expected one of Lazy, Full",
        "line 7: host 'gpu0' property memory: expected a byte size", "line 18: link 'l1': bandwidth: expected",
        "line 21: route gpu0 -> gpu1: dst: unknown host", "line 4: edge node1 -- node2: duplicate",
        "line 3 (rank 1), column 2: expected an op", "line 5 (rank 4): 5 rows (ranks)",
        "line 2: YAML syntax error: illegal map value", "line 7: XML syntax error: unexpected end of data",
        "line 3: JSON syntax error: unexpected end of input", "line 3: micro batches: unknown key 'micro batches'"})
    EXPECT_NE(named_field(named), "") << named;
  for (const std::string unnamed :
       {"line 13: expected 'ID -- DESCRIPTION'", "duplicate edge node1 -- node2", "no ops: expected one row",
        "SimGrid rejected the platform: boom", "on the link l1, the transfer after B2 overlaps", "no colon at all"})
    EXPECT_EQ(named_field(unnamed), "") << unnamed;
}

TEST(FuzzHarness, ChildOutcomes) {
  const std::string dir = fs::temp_directory_path().string(),
                    out = dir + "/fuzz-harness-" + std::to_string(::getpid()) + ".out", err = out + ".err";
  const ChildResult exited = run_child({"/bin/sh", "-c", "echo hi; echo oops >&2; exit 2"}, dir, out, err, 20);
  EXPECT_EQ(exited.exit_code, 2);
  EXPECT_EQ(read_file(out), "hi\n");
  EXPECT_EQ(read_file(err), "oops\n");
  const ChildResult killed = run_child({"/bin/sh", "-c", "kill -ABRT $$"}, dir, out, err, 20);
  EXPECT_EQ(killed.signal, SIGABRT);
  const ChildResult hung = run_child({"/bin/sh", "-c", "sleep 30"}, dir, out, err, 1);
  EXPECT_TRUE(hung.timed_out);
  fs::remove(out);
  fs::remove(err);
}

// --- platform XML --------------------------------------------------------

const FormatRules kXmlRules = {{std::regex(R"re( [A-Za-z_]+="[^"]*")re"),             // an attribute
                                std::regex(R"re(<host [^\n]*>[\s\S]*?</host>\n)re"),  // a host with its properties
                                std::regex(R"re(  *<(link|route|router|prop) [^\n]*\n)re")},  // a one-line element
                               std::regex(R"re(\b(?:id|src|dst)="([^"]*)")re"),
                               {"gpu9", "nosuch", "gpu0", "link0-1", "", "nvswitch", "__loopback__"},
                               ""};

class PlatformXml : public FuzzCase {
  std::string format() const override { return "platform"; }
  std::uint64_t seed_base() const override { return 1000; }
};

TEST_P(PlatformXml, KeepsTheErrorContract) {
  Rng rng(seed_);
  const std::string base = rng.chance(75) ? "platforms/complete-4.xml" : "platforms/nvswitch-4gpu.xml";
  mutations_.push_back("base " + base);
  write("platform.xml", mutated(source(base), rng, kXmlRules));
  write("workload.yaml", tiny_workload());
  conclude(run(run_call("platform.xml", "workload.yaml")));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, PlatformXml, ::testing::Range(0, kCasesPerFormat));

// --- cluster description YAML --------------------------------------------

const FormatRules kClusterRules = {{std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re")},  // key: value
                                   std::regex(R"re(\b(?:gpu|fabric|network|nic|cluster): *([^,{}\n#]+))re"),
                                   {"nosuch", "V100", "torus", "nvlink", "\"\"", "~", "[]", "{}", "0Gbps"},
                                   ""};

class ClusterDescriptionYaml : public FuzzCase {
  std::string format() const override { return "cluster"; }
  std::uint64_t seed_base() const override { return 20000; }
};

TEST_P(ClusterDescriptionYaml, KeepsTheErrorContract) {
  Rng rng(seed_);
  const std::string base =
      rng.chance(50) ? "platforms/a100-128x8-rail-200g.yaml" : "platforms/a100-1024x8-rail-200g.yaml";
  mutations_.push_back("base " + base);
  std::string text = source(base);
  if (rng.chance(50)) text += "  oversubscription: 2\n";  // and a fat-tree or ethernet network for it
  if (rng.chance(50)) text = edited(text, "network: rail", rng.chance(50) ? "network: fat-tree" : "network: ethernet");
  write("platform.yaml", mutated(without_comment_lines(text), rng, kClusterRules));
  write("workload.yaml", tiny_workload());
  conclude(run(run_call("platform.yaml", "workload.yaml")));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ClusterDescriptionYaml, ::testing::Range(0, kCasesPerFormat));

// --- workload YAML -------------------------------------------------------

const FormatRules kWorkloadRules = {
    {std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re"),  // key: value, in block or flow style
     std::regex(R"re(  - [^\n]*\n)re")},           // a list item
    std::regex(R"re(\b(?:name|schedule|placement|weights|allocation|host|k): *([^,{}\n#]+))re"),
    {"nosuch", "gpu9", "\"0,1,9,3\"", "\"\"", "pattern", "master", "~", "[]", "{}"},
    ""};

class WorkloadYaml : public FuzzCase {
  std::string format() const override { return "workload"; }
  std::uint64_t seed_base() const override { return 2000; }
};

TEST_P(WorkloadYaml, KeepsTheErrorContract) {
  Rng rng(seed_);
  const std::vector<std::string> bases = {"tiny 1f1b", "tiny pipedream", "tiny kfkb", "two-f-two-b"};
  const std::string base = rng.pick(bases);
  mutations_.push_back("base " + base);
  std::string text = base == "tiny 1f1b"        ? tiny_workload()
                     : base == "tiny pipedream" ? tiny_workload("pipedream")
                     : base == "tiny kfkb"
                         ? edited(tiny_workload("{name: kfkb, k: 2, allocation: \"0,1,0,1\"}"), "placement: auto\n", "")
                         : edited(source("workloads/examples/two-f-two-b.yaml"), "microbatches: 24", "microbatches: 4");
  write("workload.yaml", mutated(without_comment_lines(text), rng, kWorkloadRules));
  write("platform.xml", source("platforms/complete-4.xml"));
  conclude(run(run_call("platform.xml", "workload.yaml")));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, WorkloadYaml, ::testing::Range(0, kCasesPerFormat));

// Edits that the seeds above do not reach but that broke the contract once.
struct WorkloadEdit {
  std::string what;
  std::vector<std::pair<std::string, std::string>> replacements;
};

const std::vector<WorkloadEdit> kWorkloadEdits = {
    {"every cost zero", {{"forward: 1ms", "forward: 0ms"}, {"backward: 2ms", "backward: 0ms"}}},
    {"costs of 1e308 s", {{"forward: 1ms", "forward: 1e308s"}, {"backward: 2ms", "backward: 1e308s"}}},
    {"a million layers", {{"repeat: 4", "repeat: 1000000"}}},
    {"a NUL inside a key", {{"activation:", std::string("activatio\0n:", 12)}}},
    {"zero activations and weights", {{"activation: 16MiB", "activation: 0"}, {"weights: 64MiB", "weights: 0"}}},
    {"a billion micro-batches", {{"microbatches: 4", "microbatches: 1000000000"}}},
};

class WorkloadEdits : public FuzzCase {
  std::string format() const override { return "edit"; }
  std::uint64_t seed_base() const override { return 0; }
};

TEST_P(WorkloadEdits, KeepsTheErrorContract) {
  const WorkloadEdit& edit = kWorkloadEdits[static_cast<std::size_t>(GetParam())];
  mutations_.push_back("tiny.yaml: " + edit.what);
  std::string text = tiny_workload();
  for (const auto& [from, to] : edit.replacements) text = edited(text, from, to);
  write("workload.yaml", text);
  write("platform.xml", source("platforms/complete-4.xml"));
  conclude(run(run_call("platform.xml", "workload.yaml")));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, WorkloadEdits, ::testing::Range(0, static_cast<int>(kWorkloadEdits.size())));

// --- pattern YAML (written by --export-pattern), validated and run -------

const FormatRules kPatternRules = {{std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re"), std::regex(R"re(  - [^\n]*\n)re")},
                                   std::regex(R"re(\b(?:task|device|weights|from|to): *([^,{}\n#]+))re"),
                                   {"F9", "B0", "X1", "gpu9", "nosuch", "2bw", "stashing", "F1", "-1"},
                                   ""};

class PatternYaml : public FuzzCase {
  std::string format() const override { return "pattern"; }
  std::uint64_t seed_base() const override { return 3000; }
};

TEST_P(PatternYaml, KeepsTheErrorContract) {
  Rng rng(seed_);
  // The workload's schedule, and whether it places the layers itself.
  const std::vector<std::pair<std::string, bool>> schedules = {
      {"1f1b", false}, {"{name: 1f1b-pattern, allocation: \"0,1,0,1\"}", true}, {"{name: kfkb, k: 2}", false}};
  const auto& [schedule, places_layers] = rng.pick(schedules);
  mutations_.push_back("pattern exported from tiny.yaml with schedule " + schedule);
  std::string base = tiny_workload(schedule);
  if (places_layers) base = edited(base, "placement: auto\n", "");
  write("base.yaml", base);
  write("platform.xml", source("platforms/complete-4.xml"));
  Invocation export_call{{"run", "platform.xml", "base.yaml", "--export-pattern", "pattern.yaml", "--quiet"}, {}, {}};
  int exit_code = -1;
  ASSERT_EQ(run(export_call, &exit_code), "");
  ASSERT_EQ(exit_code, 0);
  fs::remove(work() + "/base.yaml");
  write("pattern.yaml", mutated(without_comment_lines(read_file(work() + "/pattern.yaml")), rng, kPatternRules));
  write("workload.yaml", tiny_workload());
  write("run.yaml", edited(tiny_workload("{name: pattern, file: pattern.yaml}"), "placement: auto\n", ""));

  Invocation validate{{"validate", "platform.xml", "workload.yaml", "pattern.yaml", "--json", "violations.json"},
                      {{"violations.json", "{"}},
                      {"platform.xml", "workload.yaml", "pattern.yaml", "violations.json"}};
  std::string failure = run(validate);
  if (failure.empty())
    failure = run(run_call("platform.xml", "run.yaml", {}, {"platform.xml", "run.yaml", "pattern.yaml"}));
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, PatternYaml, ::testing::Range(0, kCasesPerFormat));

// --- PyTorch per-device compute orders (CSV), validated ------------------

const FormatRules kCsvRules = {{std::regex(R"re([^,\n]+)re")},  // a cell
                               std::regex(R"re(([0-9]+[A-Z]+[0-9]+))re"),
                               {"0X0", "9F0", "0F99", "hello", "1F-1", "0F0", "0B", "F1", "0FULL_BACKWARD1", "0I9"},
                               ","};

class OrdersCsv : public FuzzCase {
  std::string format() const override { return "orders"; }
  std::uint64_t seed_base() const override { return 4000; }
};

TEST_P(OrdersCsv, KeepsTheErrorContract) {
  Rng rng(seed_);
  const bool zb1p = rng.chance(60);
  mutations_.push_back(zb1p ? "base tests/data/pytorch/zb1p_2rank_2stagep_compute.csv" : "base GPipe orders, 4 ranks");
  write("orders.csv",
        mutated(zb1p ? source("tests/data/pytorch/zb1p_2rank_2stagep_compute.csv") : gpipe_orders(), rng, kCsvRules));
  // zb1p's file has 8 micro-batches, tiny.yaml's own number.
  write("workload.yaml", zb1p ? source("workloads/examples/tiny.yaml") : tiny_workload());
  write("platform.xml", source("platforms/complete-4.xml"));
  conclude(run({{"validate", "platform.xml", "workload.yaml", "orders.csv", "--json", "violations.json"},
                {{"violations.json", "{"}},
                {"platform.xml", "workload.yaml", "orders.csv", "violations.json"}}));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, OrdersCsv, ::testing::Range(0, kCasesPerFormat));

// --- PipeDream graph.txt, imported, then run -----------------------------

const FormatRules kGraphRules = {{std::regex(R"re([a-z_]+=[^,\n]*)re"),          // key=value
                                  std::regex(R"re( -- [^\n]*?(?= -- |\n))re")},  // a ` -- ` section
                                 std::regex(R"re(\b(node[0-9]+)\b)re"),
                                 {"node9999", "node1", "nodeX", "Input", "node-1", "node"},
                                 ", "};

class PipeDreamGraph : public FuzzCase {
  std::string format() const override { return "graph"; }
  std::uint64_t seed_base() const override { return 5000; }
};

TEST_P(PipeDreamGraph, KeepsTheErrorContract) {
  Rng rng(seed_);
  write("graph.txt", mutated(source("workloads/profiles/resnet18/graph.txt"), rng, kGraphRules));
  write("platform.xml", source("platforms/complete-4.xml"));
  int exit_code = -1;
  std::string failure = run({{"import", "graph.txt", "-o", "imported.yaml", "--microbatches", "4"},
                             {{"imported.yaml", "#"}},
                             {"graph.txt", "imported.yaml"}},
                            &exit_code);
  if (failure.empty() && exit_code == 0) failure = run(run_call("platform.xml", "imported.yaml"));
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, PipeDreamGraph, ::testing::Range(0, kCasesPerFormat));

// --- model workloads (docs/workload-format.md#model) ---------------------

const FormatRules kModelRules = {
    {std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re"), std::regex(R"re(  - [^\n]*\n)re")},
    std::regex(R"re(\b(?:preset|activation|precision|recompute|name|config|schedule|optimizer): *([^,{}\n#]+))re"),
    {"nosuch", "gpt3-1.7b", "swiglu", "fp8", "full", "selective", "adamw", "config.json", "-1", "0", "~", "[]", "{}"},
    ""};

class ModelWorkload : public FuzzCase {
  std::string format() const override { return "model"; }
  std::uint64_t seed_base() const override { return 8000; }
};

// A small GPT on one GPU with a device type, or on the 4-device complete graph (no type: flops at host speed).
std::string small_model_workload() {
  return "name: small\nmodel:\n  layers: 2\n  hidden: 256\n  heads: 4\n  kv_heads: 2\n  vocab: 1000\n"
         "  seq_length: 128\n  microbatch_size: 2\n  activation: gelu\n  precision: bf16\n  recompute: none\n"
         "  tp: 1\n  calibration: calibration.yaml\noptimizer: {name: adam, gradient_bytes: 4, distributed: true, "
         "data_parallel: 2, clip_grad: true, post_validation: true}\n"
         "memory: {reserve: 1MB}\nmicrobatches: 4\niterations: 2\nschedule: gpipe\n";
}

// The compute model's measured times by op key (docs/devices.md#calibration-files).
const std::string kCalibration =
    "tokens_per_microbatch: 256\nblock.forward: 1ms\nblock.backward_input: 1.5ms\nblock.backward_weight: 0.5ms\n"
    "head.forward: 2ms\nembedding.forward: 10us\n";

TEST_P(ModelWorkload, KeepsTheErrorContract) {
  Rng rng(seed_);
  const bool typed = rng.chance(50);
  mutations_.push_back(typed ? "platform h200-1gpu.xml" : "platform complete-4.xml");
  write("config.json", source("tests/data/hf/llama-2-7b.json"));
  // A quarter of the cases mutate the calibration file instead of the workload.
  const bool calibration = rng.chance(25);
  mutations_.push_back(calibration ? "calibration.yaml mutated" : "workload.yaml mutated");
  // The mutated calibration also gives a stash (the workload's recompute stays none).
  write("calibration.yaml",
        calibration ? mutated(kCalibration + "block.stash_bytes: 4096\n", rng, kModelRules) : kCalibration);
  write("workload.yaml", calibration ? small_model_workload() : mutated(small_model_workload(), rng, kModelRules));
  write("platform.xml", source(typed ? "platforms/h200-1gpu.xml" : "platforms/complete-4.xml"));
  conclude(run(run_call("platform.xml", "workload.yaml", {},
                        {"platform.xml", "workload.yaml", "config.json", "calibration.yaml"})));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ModelWorkload, ::testing::Range(0, kCasesPerFormat));

// --- PyTorch profiler traces, imported as a calibration, then run ----------

const FormatRules kTraceRules = {
    {std::regex(R"re(\{[^{}\n]*\})re"),                                 // an event (or its args)
     std::regex(R"re("[A-Za-z ]+": *(?:"[^"\n]*"|[^,{}\[\]\n]+))re")},  // "key": value
    std::regex(R"re("(?:name|cat|ph|ts|dur|External id|Sequence number|tid)": *("[^"\n]*"|[^,{}\[\]\n]+))re"),
    {"\"ProfilerStep#9\"", "\"block1\"", "\"kernel\"", "\"cpu_op\"", "-1", "1e400", "null", "[]", "{}", "\"X\"",
     "99999999999999999999", "0"},
    ", "};

class ProfilerTrace : public FuzzCase {
  std::string format() const override { return "trace"; }
  std::uint64_t seed_base() const override { return 8500; }
};

TEST_P(ProfilerTrace, KeepsTheErrorContract) {
  Rng rng(seed_);
  // One event per line, so that a mutation takes a whole event or one field of it.
  std::string text = "{\"traceEvents\": [\n";
  const nlohmann::json trace = testing::synthetic_trace();
  for (std::size_t i = 0; i < trace["traceEvents"].size(); ++i)
    text += (i ? ",\n" : "") + trace["traceEvents"][i].dump();
  text += "\n]}\n";
  write("kineto.json", mutated(text, rng, kTraceRules));
  // The synthetic trace's micro-batch: 2 sequences of 8 tokens.
  std::string workload = small_model_workload();
  workload.replace(workload.find("seq_length: 128"), 15, "seq_length: 8");
  write("workload.yaml", workload);
  write("platform.xml", source("platforms/h200-1gpu.xml"));
  int exit_code = -1;
  std::string failure = run({{"import", "kineto.json", "-o", "calibration.yaml"},
                             {{"calibration.yaml", "#"}},
                             {"kineto.json", "calibration.yaml"}},
                            &exit_code);
  if (failure.empty() && exit_code == 0)
    failure = run(run_call("platform.xml", "workload.yaml", {}, {"platform.xml", "workload.yaml", "calibration.yaml"}));
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ProfilerTrace, ::testing::Range(0, kCasesPerFormat));

// --- PyTorch execution traces, imported beside the profiler trace, then run ----

const FormatRules kExecutionTraceRules = {
    {std::regex(R"re(\{"name":"(?:rf_id|seq_id)"[^{}\n]*\})re"),                        // an attribute
     std::regex(R"re(\[-?[0-9]+,-?[0-9]+,-?[0-9]+,-?[0-9]+,-?[0-9]+,"[^"\n]*"\])re")},  // a tensor
    std::regex(R"re("(?:name|ctrl_deps|id|value|types)": *("[^"\n]*"|[^,{}\[\]\n]+))re"),
    {"\"block1\"", "\"aten::mm\"", "\"autograd::engine::evaluate_function: X\"", "\"Tensor(float)\"", "-1", "1e400",
     "null", "[]", "{}", "99999999999999999999", "0", "3"},
    ","};

class ExecutionTraceFuzz : public FuzzCase {
  std::string format() const override { return "execution-trace"; }
  std::uint64_t seed_base() const override { return 8600; }
};

TEST_P(ExecutionTraceFuzz, KeepsTheErrorContract) {
  Rng rng(seed_);
  // One node per line, so that a mutation takes a whole node or one field of it.
  std::string text = "{\"schema\": \"1.1.1-chakra.0.0.4\", \"nodes\": [\n";
  const nlohmann::json et = testing::synthetic_execution_trace();
  for (std::size_t i = 0; i < et["nodes"].size(); ++i) text += (i ? ",\n" : "") + et["nodes"][i].dump();
  text += "\n]}\n";
  write("et.json", mutated(text, rng, kExecutionTraceRules));
  write("kineto.json", testing::synthetic_trace().dump());
  std::string workload = small_model_workload();
  workload.replace(workload.find("seq_length: 128"), 15, "seq_length: 8");
  write("workload.yaml", workload);
  write("platform.xml", source("platforms/h200-1gpu.xml"));
  int exit_code = -1;
  std::string failure = run({{"import", "kineto.json", "--execution-trace", "et.json", "-o", "calibration.yaml"},
                             {{"calibration.yaml", "#"}},
                             {"et.json", "kineto.json", "calibration.yaml"}},
                            &exit_code);
  if (failure.empty() && exit_code == 0)
    failure = run(run_call("platform.xml", "workload.yaml", {}, {"platform.xml", "workload.yaml", "calibration.yaml"}));
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ExecutionTraceFuzz, ::testing::Range(0, kCasesPerFormat));

// --- A TP x PP x DP layout (parallel:), through a model workload ---------------

const FormatRules kParallelRules = {
    {std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re"), std::regex(R"re(\[[^\]\n]*\])re")},
    std::regex(
        R"re(\b(?:tp|pp|dp|zero|order|bucket|tp_algorithm|dp_algorithm|devices|gpus|schedule|partition): *([^,{}\n#]+))re"),
    {"3",
     "4",
     "0",
     "-1",
     "1000000",
     "pp-tp-dp",
     "tp-tp-pp",
     "tree",
     "hierarchical",
     "ring",
     "[gpu0, gpu0]",
     "[gpu9]",
     "1e30TB",
     "zbv",
     "interleaved-1f1b",
     "even",
     "balanced",
     "~",
     "[]",
     "{}"},
    ""};

class ParallelWorkload : public FuzzCase {
  std::string format() const override { return "parallel"; }
  std::uint64_t seed_base() const override { return 10000; }
};

TEST_P(ParallelWorkload, KeepsTheErrorContract) {
  Rng rng(seed_);
  std::string workload =
      "model: {layers: 4, hidden: 256, heads: 4, vocab: 1000, seq_length: 64}\n"
      "optimizer: {name: adam}\nmicrobatches: 4\nschedule: 1f1b\nplacement: {partition: balanced}\n"
      "parallel: {tp: 2, pp: 1, dp: 2, order: tp-dp-pp, zero: 1, bucket: 8MB, overlap_gradient_reduce: true,\n"
      "           overlap_param_gather: true, overlap_tp: false, overlap_p2p: false, scatter_gather: true,\n"
      "           tp_algorithm: ring, dp_algorithm: auto,\n"
      "           devices: [gpu0, gpu1, gpu2, gpu3]}\n";
  // Without --trace, and with ZeRO 0, the unmutated job folds its two replicas (docs/folding.md).
  const bool folded = rng.chance(50);
  if (folded) {
    mutations_.push_back("no --trace, zero 0: folding on");
    workload = edited(workload, "zero: 1", "zero: 0");
  }
  if (rng.chance(50)) {  // the first N GPUs instead of a device list
    mutations_.push_back("gpus: 4 for the device list");
    workload = edited(workload, "devices: [gpu0, gpu1, gpu2, gpu3]", "gpus: 4");
  }
  if (rng.chance(50)) {  // layer counts per stage instead of a partition rule
    mutations_.push_back("placement.layers for the partition");
    workload = edited(workload, "placement: {partition: balanced}", "placement: {layers: [6]}");
  }
  write("workload.yaml", mutated(workload, rng, kParallelRules));
  // A platform whose GPUs have a device type, so that the unmutated job runs.
  write("platform.xml", source("platforms/nvswitch-4gpu.xml"));
  Invocation call = run_call("platform.xml", "workload.yaml", {}, {"platform.xml", "workload.yaml"});
  if (folded) {
    call.args = {"run", "platform.xml", "workload.yaml", "--json", "out.json", "--quiet"};
    call.outputs = {{"out.json", "{"}};
  }
  conclude(run(call));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ParallelWorkload, ::testing::Range(0, kCasesPerFormat));

// --- Hugging Face config.json, through a model workload --------------------

const FormatRules kHfConfigRules = {{std::regex(R"re("[a-z_]+": *[^,{}\n]*)re")},  // "key": value
                                    std::regex(R"re("(?:model_type|hidden_act|torch_dtype)": *"([^"\n]*)")re"),
                                    {"bert", "gelu", "relu", "", "mistral", "gpt2", "llama"},
                                    ", "};

class HfConfigJson : public FuzzCase {
  std::string format() const override { return "hfconfig"; }
  std::uint64_t seed_base() const override { return 9000; }
};

TEST_P(HfConfigJson, KeepsTheErrorContract) {
  Rng rng(seed_);
  const bool gpt2 = rng.chance(50);
  mutations_.push_back(gpt2 ? "base tests/data/hf/gpt2-xl.json" : "base tests/data/hf/llama-2-7b.json");
  write("config.json",
        mutated(source(gpt2 ? "tests/data/hf/gpt2-xl.json" : "tests/data/hf/llama-2-7b.json"), rng, kHfConfigRules));
  // Short sequences keep the case fast whatever the config says.
  write("workload.yaml", "model: {config: config.json, seq_length: 64, layers: 2}\nmicrobatches: 2\nschedule: 1f1b\n");
  write("platform.xml", source("platforms/h200-1gpu.xml"));
  conclude(run(run_call("platform.xml", "workload.yaml", {}, {"platform.xml", "workload.yaml", "config.json"})));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, HfConfigJson, ::testing::Range(0, kCasesPerFormat));

// --- --cfg KEY:VALUE -----------------------------------------------------

class SimGridSetting : public FuzzCase {
  std::string format() const override { return "cfg"; }
  std::uint64_t seed_base() const override { return 6000; }
};

std::string setting(Rng& rng) {
  // SimGrid 3.32's keys that change the simulation (not tracing, SMPI,
  // model checking, debugging or chaos monkey), and one unknown key.
  static const std::vector<std::string> keys = {"network/model",
                                                "cpu/model",
                                                "host/model",
                                                "network/crosstraffic",
                                                "network/TCP-gamma",
                                                "network/latency-factor",
                                                "network/bandwidth-factor",
                                                "network/weight-S",
                                                "network/loopback-bw",
                                                "network/loopback-lat",
                                                "network/maxmin-selective-update",
                                                "network/optim",
                                                "network/solver",
                                                "cpu/optim",
                                                "cpu/solver",
                                                "cpu/maxmin-selective-update",
                                                "maxmin/precision",
                                                "surf/precision",
                                                "maxmin/concurrency-limit",
                                                "contexts/factory",
                                                "contexts/stack-size",
                                                "contexts/guard-size",
                                                "contexts/nthreads",
                                                "bmf/max-iterations",
                                                "bmf/precision",
                                                "exception/cutpath",
                                                "foo/bar",
                                                "network/Model"};
  static const std::vector<std::string> values = {"",
                                                  "0",
                                                  "-1",
                                                  "1",
                                                  "nan",
                                                  "inf",
                                                  "-inf",
                                                  "1e308",
                                                  "1e-308",
                                                  "2147483648",
                                                  "9223372036854775808",
                                                  "yes",
                                                  "no",
                                                  "CM02",
                                                  "LV08",
                                                  "Constant",
                                                  "IB",
                                                  "SMPI",
                                                  "Cas01",
                                                  "ptask_L07",
                                                  "default",
                                                  "compound",
                                                  "TI",
                                                  "Lazy",
                                                  "Full",
                                                  "maxmin",
                                                  "bmf",
                                                  "fairbottleneck",
                                                  "thread",
                                                  "raw",
                                                  "ucontext",
                                                  "boost",
                                                  "garbage\x01",
                                                  " ",
                                                  "CM02 ",
                                                  "1:2",
                                                  "0.5:0.5"};
  switch (rng.below(10)) {
    case 0:
      return rng.pick(keys);  // no colon
    case 1:
      return ":" + rng.pick(values);  // no key
    default:
      return rng.pick(keys) + ":" + rng.pick(values);
  }
}

TEST_P(SimGridSetting, KeepsTheErrorContract) {
  Rng rng(seed_);
  std::vector<std::string> extra;
  for (int n = rng.chance(25) ? 2 : 1; n > 0; --n) {
    extra.push_back("--cfg");
    extra.push_back(setting(rng));
    mutations_.push_back("--cfg " + shown(extra.back()));
  }
  write("platform.xml", source("platforms/complete-4.xml"));
  write("workload.yaml", tiny_workload());
  conclude(run(run_call("platform.xml", "workload.yaml", extra, {"--cfg", "out.json", "trace.json"})));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, SimGridSetting, ::testing::Range(0, 64));

// --- output paths (never outside the case directory) ---------------------

class OutputPaths : public FuzzCase {
  std::string format() const override { return "outputs"; }
  std::uint64_t seed_base() const override { return 7000; }
};

TEST_P(OutputPaths, KeepsTheErrorContract) {
  Rng rng(seed_);
  // `dir` exists; `nodir/` does not; `same` repeats the previous path.
  std::vector<std::string> options = {"--json",           "--trace",   "--memory-trace",
                                      "--export-pattern", "--diagram", "--workers"};
  static const std::vector<std::string> paths = {"a.out", "dir", "dir/",  "nodir/x",    "same",
                                                 "b.svg", ".",   "c.txt", "dir/ok.txt", "platform.xml"};
  fs::create_directories(work() + "/dir");
  write("platform.xml", source("platforms/complete-4.xml"));
  write("workload.yaml", tiny_workload());
  Invocation call{{"run", "platform.xml", "workload.yaml", "--quiet"}, {}, {"platform.xml", "workload.yaml"}};
  std::string previous = "first.out";
  for (int n = 2 + static_cast<int>(rng.below(3)); n > 0; --n) {
    const std::size_t o = rng.below(options.size());  // each option once: a repeated one overrides
    const std::string option = options[o];
    options.erase(options.begin() + static_cast<std::ptrdiff_t>(o));
    std::string path = rng.pick(paths);
    if (path == "same") path = previous;
    previous = path;
    mutations_.push_back(option + " " + path);
    call.args.push_back(option);
    call.args.push_back(path);
    call.blame.push_back(path);
    // A file that did not exist before must not exist after an error.
    if (path != "dir" && path != "dir/" && path != "." && path != "platform.xml") call.outputs.push_back({path, ""});
  }
  conclude(run(call));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, OutputPaths, ::testing::Range(0, 40));

}  // namespace
}  // namespace pipesim::fuzz
