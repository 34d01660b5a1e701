// The error contract (docs/outputs.md#exit-codes) on the surfaces beyond
// the input formats of tests/fuzz/test_fuzz_contract.cpp: sweep specs and their
// options, `sweep merge` of mutated shards, CSV runs, export round trips,
// split and memory-saving workloads, the ILP's parameters and the platform
// generator. Each case mutates a small valid input with a seeded RNG, runs
// the command as a child and checks the contract on the whole case
// directory (tests/fuzz/fuzz_case.hpp); case `sweep-3` is seeded 11003; to run it:
//   build/pipesim_tests --gtest_filter=Fuzz/SweepSpec.KeepsTheErrorContract/3
#include <algorithm>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_case.hpp"

namespace pipesim::fuzz {
namespace {

// tiny.yaml with 4 micro-batches and another schedule line.
std::string tiny_workload(const std::string& schedule = "1f1b") {
  return edited(
      edited(without_comment_lines(source("workloads/examples/tiny.yaml")), "microbatches: 8", "microbatches: 4"),
      "schedule: 1f1b", "schedule: " + schedule);
}

// YAML in block or flow style, as the workload suites mutate it.
FormatRules yaml_rules(const std::string& named_keys, std::vector<std::string> unknown) {
  return {{std::regex(R"re(\b[a-z_.]+: *[^,{}\n#]*)re"), std::regex(R"re(  - [^\n]*\n)re"),
           std::regex(R"re(\[[^\]\n]*\])re")},
          std::regex(R"re(\b(?:)re" + named_keys + R"re(): *([^,{}\n#]+))re"),
          std::move(unknown),
          ""};
}

// --- sweep specs and the sweep's options ----------------------------------

const FormatRules kSpecRules =
    yaml_rules("name|workload|platform|generator|schedule|microbatches|schedule\\.k",
               {"nosuch.yaml", "platform", "'cluster --boxes 0 --gpus 2'", "'cluster --gpu B200 --gpus 2'", "''",
                "schedule", "kfkb", "~", "[]", "{}", "tiny.yaml", "spec.yaml", "out/results.csv", "-1"});

// Four runs: two platforms (one generated) x two zipped schedules.
const std::string kSpec =
    "name: fuzz\nworkload: tiny.yaml\nset: {microbatches: 2}\ngenerator: make_platform.py\n"
    "grid:\n  platform: [complete-4.xml, 'cluster --boxes 2 --gpus 2 --nic 100Gbps']\n"
    "zip:\n  - {schedule: [gpipe, kfkb], schedule.k: ['', 2]}\n";

class SweepSpec : public SurfaceCase {
  std::string format() const override { return "sweep"; }
  std::uint64_t seed_base() const override { return 11000; }
};

// A results.csv of RUNS rows (any number: -1) where, if RAN_HERE, no run was
// killed by a signal (a run's crash breaks the contract, even inside a sweep).
std::string check_results(const std::string& csv, std::size_t runs, bool ran_here) {
  const std::vector<Span> rows = lines(csv);
  if (csv.rfind("id,platform,workload,", 0) != 0) return "results.csv has no header";
  if (runs != static_cast<std::size_t>(-1) && rows.size() != runs + 1)
    return "results.csv has " + std::to_string(rows.size() - 1) + " rows for " + std::to_string(runs) + " runs";
  for (const Span& r : rows)
    if (ran_here && csv.substr(r.pos, r.len).find(",killed by signal") != std::string::npos)
      return "a run of the sweep crashed: " + shown(csv.substr(r.pos, r.len), 300);
  return "";
}

// What a sweep or a merge into DIR may write.
void declare_sweep_folder(Command& c, const std::string& dir) {
  if (dir == "." || dir == "./") {  // the case folder itself
    c.folders = {"runs", "platforms"};
    c.files = {{"results.csv", "id,"}, {"plan.json", "{"}, {".lock", ""}};
  } else if (!dir.empty()) {
    c.folders = {dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir};
  }
}

std::size_t files_in(const std::string& folder) {
  std::error_code ec;
  std::size_t n = 0;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

TEST_P(SweepSpec, KeepsTheErrorContract) {
  Rng rng(seed_);
  write("tiny.yaml", tiny_workload());
  write("complete-4.xml", source("platforms/complete-4.xml"));
  write("make_platform.py", source("scripts/make_platform.py"));
  const bool spec_mutated = rng.chance(60);
  write("spec.yaml", spec_mutated ? mutated(kSpec, rng, kSpecRules) : kSpec);
  std::vector<std::string> args = {"sweep", "spec.yaml", "-o", "out", "-j", "2"};
  if (rng.chance(spec_mutated ? 10 : 50)) {  // the options
    static const std::vector<std::string> options = {"-j", "--shard", "--cfg", "-o"};
    static const std::vector<std::string> values = {"0",
                                                    "-1",
                                                    "3",
                                                    "1/2",
                                                    "2/2",
                                                    "3/2",
                                                    "0/1",
                                                    "1/0",
                                                    "a/b",
                                                    "2147483648/2147483648",
                                                    "1/",
                                                    "",
                                                    "network/model:LV08",
                                                    "network/model:nosuch",
                                                    "foo:bar",
                                                    "out/",
                                                    "spec.yaml",
                                                    "complete-4.xml",
                                                    "."};
    const std::string option = chose("option", rng.pick(options)), value = chose("value", rng.pick(values));
    if (option == "-o")
      args[3] = value;
    else
      args.insert(args.end(), {option, value});
  }
  // An error may name the spec, the option, the folder, or any file the spec names.
  std::vector<std::string> blame = {"spec.yaml",       "tiny.yaml", "complete-4.xml",         "--cfg",
                                    "--shard",         args[3],     args[3] + "/results.csv", args[3] + "/plan.json",
                                    args[3] + "/.lock"};
  Command c = pipesim_command(args, blame);
  c.naming_inputs = {"spec.yaml"};
  declare_sweep_folder(c, args[3]);
  Outcome o;
  std::string failure = run(c, &o);
  if (failure.empty() && o.child.exit_code == 0) {
    const std::string dir = work() + "/" + args[3];
    failure = check_results(read_file(dir + "/results.csv"), files_in(dir + "/runs"), true);
    if (failure.empty() && !nlohmann::json::parse(read_file(dir + "/plan.json"), nullptr, false).is_object())
      failure = "plan.json is not whole";
  }
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, SweepSpec, ::testing::Range(0, 16));

// --- pipesim plan of a mutated model workload, with its options -------------

const FormatRules kPlanRules =
    yaml_rules("name|preset|layers|hidden|heads|seq_length|microbatch_size|microbatches|schedule|recompute|tp|dp",
               {"nosuch", "0", "-1", "3", "1000000", "~", "[]", "{}", "''", "gpt3-1t", "full", "1e9"});

const std::string kPlanWorkload =
    "name: small\n"
    "model: {preset: gpt2-xl, layers: 2, hidden: 256, heads: 4, seq_length: 128, microbatch_size: 2}\n"
    "microbatches: 2\n"
    "schedule: 1f1b\n";

class PlanInputs : public SurfaceCase {
  std::string format() const override { return "plan"; }
  std::uint64_t seed_base() const override { return 21000; }
};

TEST_P(PlanInputs, KeepsTheErrorContract) {
  Rng rng(seed_);
  write("platform.xml", source("platforms/nvswitch-4gpu.xml"));
  const bool mutated_workload = rng.chance(70);
  write("workload.yaml", mutated_workload ? mutated(kPlanWorkload, rng, kPlanRules) : kPlanWorkload);
  std::vector<std::string> args = {"plan", "platform.xml", "workload.yaml", "-o", "out", "--top", "2"};
  if (rng.chance(80)) args.push_back("--screen-only");  // most cases bound only: a fuzz case stays short
  if (rng.chance(mutated_workload ? 10 : 60)) {
    static const std::vector<std::string> options = {"--top",           "--global-batch", "-j",     "-o",
                                                     "--schedules",     "--objective",    "--zero", "--partitions",
                                                     "--memory-saving", "--launcher"};
    static const std::vector<std::string> values = {"0",
                                                    "-1",
                                                    "3",
                                                    "2147483648",
                                                    "",
                                                    "x",
                                                    "out/",
                                                    "workload.yaml",
                                                    "platform.xml",
                                                    ".",
                                                    "kfkb",
                                                    "1f1b,,gpipe",
                                                    "memory",
                                                    "cost",
                                                    "balanced",
                                                    "remat",
                                                    "none",
                                                    "env",
                                                    "nosuch -n1",
                                                    "both",
                                                    "fit",
                                                    "pipedream,ilp"};
    const std::string option = chose("option", rng.pick(options)), value = chose("value", rng.pick(values));
    if (option == "-o")
      args[4] = value;
    else
      args.insert(args.end(), {option, value});
  }
  const std::string& dir = args[4];
  std::vector<std::string> blame = {
      "workload.yaml", "platform.xml", "--top",           "--global-batch", "-j", "--schedules",     "--objective",
      "--zero",        "--partitions", "--memory-saving", "--launcher",     dir,  dir + "/plan.csv", dir + "/.lock"};
  Command c = pipesim_command(args, blame);
  declare_sweep_folder(c, dir);
  if (dir == "." || dir == "./") c.files.insert(c.files.end(), {{"plan.csv", "id,"}, {"winner.yaml", "#"}});
  conclude(run(c));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, PlanInputs, ::testing::Range(0, 16));

// docs/outputs.md#output-files: the generator's error, as the sweep reports it.
TEST(SweepFolder, AGeneratorErrorIsTheSweepsOneLine) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir =
      (fs::temp_directory_path() / ("pipesim-generator-error-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir + "/tmp");
  std::ofstream(dir + "/s.yaml") << "workload: tiny.yaml\ngenerator: make_platform.py\n"
                                    "grid:\n  platform: ['cluster --boxes 0 --gpus 2']\n";
  std::ofstream(dir + "/tiny.yaml") << source("workloads/examples/tiny.yaml");
  std::ofstream(dir + "/make_platform.py") << source("scripts/make_platform.py");
  const std::string tmpdir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
  ::setenv("TMPDIR", (dir + "/tmp").c_str(), 1);
  const ChildResult r =
      run_child({PIPESIM_BINARY, "sweep", "s.yaml", "-o", "out"}, dir, dir + "/stdout", dir + "/stderr", 60);
  if (tmpdir.empty())
    ::unsetenv("TMPDIR");
  else
    ::setenv("TMPDIR", tmpdir.c_str(), 1);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(read_file(dir + "/stderr"),
            "pipesim: error: s.yaml: platform: 'cluster --boxes 0 --gpus 2': make_platform.py cluster: error: --boxes "
            "and --gpus must be >= 1, --oversubscription >= 1, --nic > 0\n");
  EXPECT_EQ(read_file(dir + "/stdout"), "");
  EXPECT_FALSE(fs::exists(dir + "/out"));
  EXPECT_TRUE(fs::is_empty(dir + "/tmp"));  // the clusters' temporary folder is gone
  fs::remove_all(dir);
}

// --- sweep merge of mutated shard folders ---------------------------------

const FormatRules kJsonRules = {{std::regex(R"re("[a-z_.]+": *[^,{}\n]*)re"), std::regex(R"re(\{[^{}\n]*\})re")},
                                std::regex(R"re("(?:id|platform|workload|status)": *"([^"\n]*)")re"),
                                {"0009", "", "nosuch.xml", "valid", "killed by signal 9", "0000"},
                                ", "};

class SweepMerge : public SurfaceCase {
  std::string format() const override { return "merge"; }
  std::uint64_t seed_base() const override { return 12000; }
};

TEST_P(SweepMerge, KeepsTheErrorContract) {
  Rng rng(seed_);
  write("tiny.yaml", tiny_workload());
  write("complete-4.xml", source("platforms/complete-4.xml"));
  write("spec.yaml",
        "workload: tiny.yaml\nplatform: complete-4.xml\ngrid:\n  microbatches: [2, 3]\n"
        "  schedule: [gpipe, 1f1b]\n");
  for (const std::string shard : {"1", "2"}) {
    Command c = pipesim_command({"sweep", "spec.yaml", "-o", "s" + shard, "--shard", shard + "/2", "-j", "2"}, {});
    c.folders = {"s" + shard};
    Outcome o;
    ASSERT_EQ(run(c, &o), "");
    ASSERT_EQ(o.child.exit_code, 0) << o.err;
  }
  fs::remove(work() + "/spec.yaml");  // merge needs no spec
  std::vector<std::string> inputs = {"s1", "s2"};
  std::string output = "m";
  static const std::vector<std::string> kinds = {"plan",   "record", "drop-record", "drop-plan", "results",
                                                 "output", "inputs", "record",      "plan"};
  for (int n = rng.chance(25) ? 2 : 1; n > 0; --n) {
    const std::string kind = chose("edit", rng.pick(kinds));
    const std::string shard = rng.pick(inputs);
    const std::string record =
        shard + "/runs/000" + std::to_string(shard == "s1" ? 2 * rng.below(2) : 1 + 2 * rng.below(2)) + ".json";
    if (kind == "plan")
      write(shard + "/plan.json", mutated(read(shard + "/plan.json"), rng, kJsonRules));
    else if (kind == "record")
      write(record, mutated(read(record), rng, kJsonRules));
    else if (kind == "drop-record")
      fs::remove(work() + "/" + chose("removed", record));
    else if (kind == "drop-plan")
      fs::remove(work() + "/" + shard + "/plan.json");
    else if (kind == "results")
      fs::remove(work() + "/" + shard + "/results.csv");
    else if (kind == "output")
      output = chose("-o", rng.pick(std::vector<std::string>{"s1", "s2/", "s1/runs", ".", "s2/m", "tiny.yaml"}));
    else {
      static const std::vector<std::vector<std::string>> lists = {
          {"s1"}, {"s1", "s1"}, {"s1", "nosuch"}, {"s2", "s1"}, {"s1", "tiny.yaml"}, {"s1", "s2", "s2/runs"}};
      inputs = rng.pick(lists);
      std::string shown_inputs;
      for (const auto& i : inputs) shown_inputs += i + " ";
      chose("folders", shown_inputs);
    }
  }
  std::vector<std::string> args = {"sweep", "merge"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  args.insert(args.end(), {"-o", output});
  std::vector<std::string> blame = {output, output + "/results.csv", output + "/plan.json", output + "/.lock"};
  for (const auto& i : inputs) {
    blame.insert(blame.end(), {i, i + "/plan.json", i + "/runs"});
    for (int r = 0; r < 4; ++r) blame.push_back(i + "/runs/000" + std::to_string(r) + ".json");
  }
  Command c = pipesim_command(args, blame);
  declare_sweep_folder(c, output);
  Outcome o;
  std::string failure = run(c, &o);
  if (failure.empty() && o.child.exit_code == 0)
    failure =
        check_results(read(output + "/results.csv"), 4, false);  // whole or refused; records as the shards hold them
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, SweepMerge, ::testing::Range(0, 10));

// --- runs of PyTorch CSV orders (schedule: csv) ----------------------------

const FormatRules kCsvRules = {{std::regex(R"re([^,\n]+)re")},  // a cell
                               std::regex(R"re(([0-9]+[A-Z_]+[0-9]+))re"),
                               {"0X0", "9F0", "0F99", "hello", "1F-1", "0F0", "0B", "F1", "0FULL_BACKWARD1", "0I9",
                                "(0F1;1B0)OVERLAP_F_B", "0SEND_F0", "1RECV_B9", "0W0"},
                               ","};

class CsvRun : public SurfaceCase {
  std::string format() const override { return "csvrun"; }
  std::uint64_t seed_base() const override { return 13000; }
};

TEST_P(CsvRun, KeepsTheErrorContract) {
  Rng rng(seed_);
  static const std::vector<std::string> bases = {"gpipe", "zb1p_2rank_2stagep_compute.csv",
                                                 "zb1p_2rank_2stagep_comms.csv", "dualpipev_4rank_10mb.csv"};
  const std::string base = chose("base", rng.pick(bases));
  const std::string orders = base == "gpipe" ? gpipe_orders() : source("tests/data/pytorch/" + base);
  std::string params;
  if (base == "zb1p_2rank_2stagep_comms.csv" && rng.chance(50))
    params = chose("parameter", rng.pick(std::vector<std::string>{", comm_step: 1ms", ", comm_step: 0s",
                                                                  ", comm_step: -1s", ", comm_step: 1e308s"}));
  const std::string layers =
      base == "dualpipev_4rank_10mb.csv"
          ? "layers:\n  - {forward: 1ms, backward: 2ms, backward_input: 1ms, backward_weight: 1ms, activation: 1MiB, "
            "repeat: 8}\n"
          : "layers:\n  - {forward: 1ms, backward: 2ms, backward_input: 1ms, backward_weight: 1ms, activation: 16MiB, "
            "repeat: 4}\n";
  const std::string workload = layers + "schedule: {name: csv, file: orders.csv" + params + "}\n";
  if (rng.chance(75)) {
    write("orders.csv", mutated(orders, rng, kCsvRules));
    write("workload.yaml", workload);
  } else {
    write("orders.csv", orders);
    write("workload.yaml",
          mutated(workload, rng,
                  yaml_rules("file|name|comm_step", {"nosuch.csv", "orders.csv", "csv", "workload.yaml", "out.json"})));
  }
  write("platform.xml", source("platforms/nvswitch-4gpu.xml"));
  Command c = run_command("platform.xml", "workload.yaml", {"orders.csv"});
  c.naming_inputs = {"workload.yaml"};
  conclude(run(c));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, CsvRun, ::testing::Range(0, 20));

// --- exports read back: --export-orders and --export-pattern ---------------

// Schedules and whether they export a periodic pattern.
const std::vector<std::pair<std::string, bool>> kExportSchedules = {
    {"1f1b", true},         {"gpipe", true},
    {"pipedream", true},    {"{name: kfkb, k: 2}", true},
    {"1f1b-pattern", true}, {"zb-h1", false},
    {"zb-h2", false},       {"zb-auto", false},
    {"zbv", false},         {"interleaved-1f1b", false},
    {"looped-bfs", false},  {"interleaved-zb", false},
    {"dualpipev", false}};

// A valid workload drawn from the seed: costs, sizes, counts.
std::string varied_layers(Rng& rng) {
  static const std::vector<std::string> times = {"1ms", "2ms", "0.5ms", "3ms", "10us"};
  static const std::vector<std::string> sizes = {"16MiB", "1MiB", "0B", "64MiB"};
  return "microbatches: " + std::to_string(1 + rng.below(6)) + "\nlayers:\n  - {forward: " + rng.pick(times) +
         ", backward: " + rng.pick(times) + ", activation: " + rng.pick(sizes) + ", weights: " + rng.pick(sizes) +
         ", repeat: " + std::to_string(2 + 2 * rng.below(3)) + "}\n  - {forward: " + rng.pick(times) +
         ", backward: " + rng.pick(times) + ", activation: " + rng.pick(sizes) + "}\n";
}

class ExportRoundTrip : public SurfaceCase {
  std::string format() const override { return "export"; }
  std::uint64_t seed_base() const override { return 14000; }
};

TEST_P(ExportRoundTrip, KeepsTheErrorContractAndReadsItsExportsBack) {
  Rng rng(seed_);
  const auto& [schedule, periodic] = kExportSchedules[rng.below(kExportSchedules.size())];
  chose("schedule", schedule);
  static const std::vector<std::string> platforms = {"nvswitch-4gpu.xml", "complete-4.xml", "nvswitch-8gpu.xml"};
  write("platform.xml", source("platforms/" + chose("platform", rng.pick(platforms))));
  std::string layers = varied_layers(rng);
  chose("layers", layers);
  if (rng.chance(30)) layers = mutated(layers, rng, yaml_rules("name", {"x"}));
  write("workload.yaml", layers + "schedule: " + schedule + "\n");
  const bool pattern = periodic && rng.chance(50);
  const std::string exported = pattern ? "pattern.yaml" : "orders.csv";
  Command c = run_command("platform.xml", "workload.yaml", {exported},
                          {pattern ? "--export-pattern" : "--export-orders", exported});
  c.files.push_back({exported, ""});
  Outcome first;
  std::string failure = run(c, &first);
  if (failure.empty() && first.child.exit_code != 2) {
    if (!exists(exported)) failure = "exit " + std::to_string(first.child.exit_code) + " without " + exported;
  }
  if (failure.empty() && exists(exported)) {
    // Read back: the same workload with the exported schedule, which exports the same file again.
    const std::string reread = pattern ? "pattern-again.yaml" : "orders-again.csv";
    write("back.yaml", layers + "schedule: {name: " + (pattern ? "pattern" : "csv") + ", file: " + exported + "}\n");
    fs::rename(work() + "/out.json", work() + "/first.json");
    Command back = run_command("platform.xml", "back.yaml", {exported},
                               {pattern ? "--export-pattern" : "--export-orders", reread});
    back.files.push_back({reread, ""});
    Outcome second;
    failure = run(back, &second);
    if (failure.empty() && second.child.exit_code != first.child.exit_code)
      failure = "the export read back exits " + std::to_string(second.child.exit_code) + ", the run " +
                std::to_string(first.child.exit_code) + ": " + second.err;
    if (failure.empty() && read(reread) != read(exported))
      failure = "the export read back exports something else:\n" + read(exported) + "\n---\n" + read(reread);
  }
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, ExportRoundTrip, ::testing::Range(0, 20));

// --- split (seed 004) and its parameters -----------------------------------

class SplitWorkload : public SurfaceCase {
  std::string format() const override { return "split"; }
  std::uint64_t seed_base() const override { return 15000; }
};

TEST_P(SplitWorkload, KeepsTheErrorContract) {
  Rng rng(seed_);
  static const std::vector<std::pair<std::string, std::vector<std::string>>> params = {
      {"workers", {"1", "2", "4", "0", "-1", "1000000"}},
      {"grouping", {"none", "algorithm2", "brute-force", "sorting", "nosuch"}},
      {"partition", {"exact", "algorithm1", ""}},
      {"epsilon", {"0.1", "0", "-1", "nan", "1e-300"}},
      {"allocation", {"optimal", "none", "0,1"}},
      {"beta", {"0.5", "0", "1", "1.5", "-0.1", "nan"}},
      {"in_flight", {"1", "3", "0", "1000000000"}},
      {"sends", {"auto", "sum", "max", "both"}}};
  std::string schedule = "{name: split";
  for (const auto& [key, values] : params)
    if (rng.chance(25)) schedule += ", " + key + ": " + rng.pick(values);
  schedule += "}";
  // Half of the cases time the layers by seed 004's table (layers' `times`).
  const std::string base = chose("workload", rng.chance(50) ? "mobile-cnn.yaml" : "mobile-cnn-table.yaml");
  std::string workload =
      edited(edited(without_comment_lines(source("workloads/examples/" + base)), "microbatches: 64", "microbatches: 8"),
             "schedule: split", "schedule: " + chose("schedule", schedule));
  if (rng.chance(50))
    workload =
        mutated(workload, rng, yaml_rules("name|grouping|partition|allocation|sends", {"nosuch", "split", "exact"}));
  static const std::vector<std::string> platforms = {"mobile-laptops-wifi.xml", "mobile-mixed-lte.xml", "mobile-4.xml"};
  write("platform.xml", source("platforms/" + chose("platform", rng.pick(platforms))));
  write("workload.yaml", workload);
  conclude(run(run_command("platform.xml", "workload.yaml", {})));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, SplitWorkload, ::testing::Range(0, 16));

// --- memory_saving (seed 002 on flush pipelines and pattern schedules) -------

class MemorySaving : public SurfaceCase {
  std::string format() const override { return "memsave"; }
  std::uint64_t seed_base() const override { return 16000; }
};

std::string memory_saving_map(Rng& rng) {
  static const std::vector<std::string> policies = {"none", "remat", "offload", "both", "nosuch"};
  static const std::vector<std::string> limits = {"auto", "fit",   "100MiB", "20MiB", "1B",
                                                  "0",    "-1MiB", "1e30TB", "nan"};
  static const std::vector<std::string> slots = {"500", "50", "2", "1", "0", "-1", "1000000000", "0.5"};
  std::string m = "{policy: " + rng.pick(policies);
  if (rng.chance(60)) m += ", limit: " + rng.pick(limits);
  if (rng.chance(40)) m += ", slots: " + rng.pick(slots);
  return m + "}";
}

TEST_P(MemorySaving, KeepsTheErrorContract) {
  Rng rng(seed_);
  std::string saving;
  if (rng.chance(70))
    saving = memory_saving_map(rng);
  else {
    saving = "[";
    for (std::size_t n = 1 + rng.below(5); n > 0; --n) saving += memory_saving_map(rng) + (n > 1 ? ", " : "");
    saving += "]";
  }
  static const std::vector<std::string> schedules = {"1f1b", "gpipe", "kfkb", "1f1b-pattern",
                                                     "{name: kfkb, k: 3, allocation: \"0,1,0,1\"}"};
  // Some cases give the option as a --set flow value (cut short in a few), as pipesim plan writes it.
  const bool on_command_line = rng.chance(30);
  if (on_command_line && rng.chance(30)) saving = saving.substr(0, rng.below(saving.size()));
  std::string workload = tiny_workload(chose("schedule", rng.pick(schedules))) +
                         (on_command_line ? "" : "memory_saving: " + chose("memory_saving", saving) + "\n");
  // The program's tape and overheads come from a layer's stash and workspaces.
  if (rng.chance(40))
    workload = edited(workload, "    activation: 16MiB\n",
                      chose("layer memory",
                            "    activation: 16MiB\n    stash: 48MiB\n    forward_workspace: 4MiB\n"
                            "    backward_workspace: 8MiB\n"));
  if (rng.chance(40))
    workload = mutated(workload, rng, yaml_rules("policy|limit|schedule", {"remat", "fit", "auto", "kfkb", "none"}));
  static const std::vector<std::string> platforms = {"a100-8gpu-pcie-host.xml", "nvswitch-4gpu.xml"};
  write("platform.xml", source("platforms/" + chose("platform", rng.pick(platforms))));
  write("workload.yaml", workload);
  std::vector<std::string> extra;
  if (on_command_line) extra = {"--set", "memory_saving=" + chose("--set memory_saving", saving)};
  Command c = run_command("platform.xml", "workload.yaml", {"--set"}, extra);
  c.may_be_infeasible = true;
  conclude(run(c));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, MemorySaving, ::testing::Range(0, 30));

// --- the ILP's parameters (schedule: ilp) -----------------------------------

class IlpParameters : public SurfaceCase {
  std::string format() const override { return "ilp"; }
  std::uint64_t seed_base() const override { return 17000; }
};

TEST_P(IlpParameters, KeepsTheErrorContract) {
  Rng rng(seed_);
  // Mostly values it takes, so that the solver runs; then one of each kind it must refuse.
  static const std::vector<std::pair<std::string, std::vector<std::string>>> params = {
      {"memory", {"12GiB", "400MiB", "300MiB", "1GiB", "100MiB"}},
      {"k", {"1", "2", "3", "4"}},
      {"weights", {"stashing", "2bw", "flush"}},
      {"allocation", {"\"0,1,0,1\"", "\"0,1,2,3\"", "\"0,0,0,0\"", "\"3,2,1,0\""}},
      {"allocation_search", {"0", "0.5", "1"}}};
  static const std::vector<std::string> refused = {"memory: 0",
                                                   "memory: -1GiB",
                                                   "memory: 1e30TB",
                                                   "memory: nan",
                                                   "k: 0",
                                                   "k: -1",
                                                   "k: 1000000",
                                                   "k: 2147483648",
                                                   "weights: nosuch",
                                                   "allocation: \"0,1,9,3\"",
                                                   "allocation: \"\"",
                                                   "allocation: \"0,1\"",
                                                   "allocation_search: 2",
                                                   "allocation_search: -0.5",
                                                   "allocation_search: half",
                                                   "memory_policy: seed000",
                                                   "threads: 1"};
  const std::string time_limit = rng.chance(20)
                                     ? rng.pick(std::vector<std::string>{"0s", "-1s", "nan", "1e308s", "1000000000s"})
                                     : rng.pick(std::vector<std::string>{"1s", "2s", "10s"});
  std::vector<std::pair<std::string, std::string>> chosen = {{"time_limit", time_limit}};
  for (const auto& [key, values] : params)
    if (rng.chance(40)) chosen.emplace_back(key, rng.pick(values));
  if (rng.chance(40)) {  // replaces the key's value if it has one
    const std::string bad = rng.pick(refused), key = bad.substr(0, bad.find(':'));
    chosen.erase(std::remove_if(chosen.begin(), chosen.end(), [&](const auto& kv) { return kv.first == key; }),
                 chosen.end());
    chosen.emplace_back(key, bad.substr(key.size() + 2));
  }
  std::string schedule = "{name: ilp";
  for (const auto& [key, value] : chosen) schedule += ", " + key + ": " + value;
  schedule += "}";
  std::string workload = tiny_workload(chose("schedule", schedule));
  if (schedule.find("allocation") != std::string::npos) workload = edited(workload, "placement: auto\n", "");
  if (rng.chance(20)) workload = mutated(workload, rng, yaml_rules("name|weights", {"ilp", "2bw", "nosuch"}));
  write("platform.xml", source("platforms/complete-4.xml"));
  write("workload.yaml", workload);
  conclude(run(run_command("platform.xml", "workload.yaml", {})));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, IlpParameters, ::testing::Range(0, 16));

// --- the study's inputs (pipesim study) ------------------------------------

class StudyInputs : public SurfaceCase {
  std::string format() const override { return "study"; }
  std::uint64_t seed_base() const override { return 23000; }
};

TEST_P(StudyInputs, KeepsTheErrorContract) {
  Rng rng(seed_);
  write("platform.xml", source("platforms/complete-4.xml"));
  const bool mutated_workload = rng.chance(40);
  write("workload.yaml",
        mutated_workload ? mutated(tiny_workload(), rng, yaml_rules("name|schedule", {"~", "[]"})) : tiny_workload());
  // Short runs: a small chain, few micro-batches, a second of ILP.
  std::vector<std::string> args = {"study",    "platform.xml", "workload.yaml",  "-o", "out",
                                   "--memory", "1GiB",         "--microbatches", "12", "--ilp-time-limit",
                                   "1"};
  static const std::vector<std::string> options = {
      "--ilp-allocation-search", "--pipedream-ties", "--ilp-time-limit", "--memory", "--noam", "--ilp-weights", "-o"};
  if (rng.chance(mutated_workload ? 20 : 80)) {
    static const std::vector<std::string> values = {
        "0",      "0.5", "1",    "1.5", "-0.5",          "x",           "", "3", "nan", "2147483648",
        "1e-400", "2bw", "out/", ".",   "workload.yaml", "platform.xml"};
    const std::string option = chose("option", rng.pick(options)), value = chose("value", rng.pick(values));
    const auto given = std::find(args.begin(), args.end(), option);
    if (given != args.end())
      *(given + 1) = value;
    else
      args.insert(args.end(), {option, value});
  }
  const std::string dir = *(std::find(args.begin(), args.end(), "-o") + 1);
  std::vector<std::string> blame = {"workload.yaml", "platform.xml", "--microbatches", dir};
  blame.insert(blame.end(), options.begin(), options.end());
  Command c = pipesim_command(args, blame);
  const bool here = dir == "." || dir == "./";
  if (!here) c.folders = {dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir};
  const std::string prefix = here ? "" : c.folders.empty() ? "" : c.folders[0] + "/";
  c.files = {
      {prefix + "points.csv", "source,"}, {prefix + "table.md", "| memory limit"}, {prefix + "plot.svg", "<svg"}};
  conclude(run(c));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, StudyInputs, ::testing::Range(0, 16));

// --- the platform generator (scripts/make_platform.py) ---------------------

class PlatformGenerator : public SurfaceCase {
  std::string format() const override { return "generator"; }
  std::uint64_t seed_base() const override { return 19000; }
};

TEST_P(PlatformGenerator, KeepsTheErrorContractAndWritesPlatformsPipesimRuns) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  Rng rng(seed_);
  static const std::vector<std::pair<std::string, std::vector<std::string>>> cluster_options = {
      {"--boxes", {"1", "2", "3", "0", "-1", "1000000", "x", "2.5"}},
      {"--gpus", {"1", "2", "4", "0", "-2", "100000", ""}},
      {"--gpu", {"A100", "H100", "H200", "MI300X", "B200"}},
      {"--fabric", {"nvswitch", "nvlink-mesh", "pcie", "nosuch"}},
      {"--network", {"fat-tree", "rail", "ethernet", "torus", "dragonfly", "ring"}},
      {"--nic", {"100Gbps", "12.5GBps", "0Gbps", "-1Gbps", "nanGbps", "infGBps", "1e400Gbps", "100", "Gbps"}},
      {"--oversubscription", {"1", "4", "0.5", "0", "nan", "inf", "-1"}},
      {"--torus-dims", {"2,2,2", "2", "0,2", "1000,1000,1000", "a", "2,,2", ""}},
      {"--dragonfly", {"2,1;2,1;2,1;2", "2,1;1,1;2,1;2", "2,1;1,1;1,1;2", "0,1;1,1;1,1;1", "1;2", "x"}},
      {"-o", {"", "nodir/x.xml", "."}}};
  std::vector<std::string> argv = {"/usr/bin/env", "python3", "make_platform.py"};
  std::string shown_args;
  bool output_given = false;
  if (rng.chance(80)) {
    argv.push_back("cluster");
    if (rng.chance(75)) argv.insert(argv.end(), {"--gpus", std::to_string(1 + rng.below(4))});
    for (const auto& [option, values] : cluster_options)
      if (rng.chance(option == "--network" ? 50 : 20)) {
        argv.insert(argv.end(), {option, rng.pick(values)});
        output_given |= option == "-o";
      }
  } else {
    static const std::vector<std::string> models = {"laptop-i7", "laptop-i5",     "pi", "laptop-i7,pi", "nosuch",
                                                    "",          "pi,pi,pi,pi,pi"};
    argv.insert(argv.end(), {"--mobile", rng.pick(models)});
    if (rng.chance(40)) argv.insert(argv.end(), {"--network", rng.pick(std::vector<std::string>{"wifi", "lte", "5g"})});
  }
  if (!output_given) argv.insert(argv.end(), {"-o", "out.xml"});
  for (std::size_t i = 2; i < argv.size(); ++i) shown_args += argv[i] + " ";
  chose("command", shown_args);
  write("make_platform.py", source("scripts/make_platform.py"));
  write("tiny.yaml", tiny_workload());
  Command c;
  c.argv = argv;
  c.error_line = std::regex(R"(make_platform\.py( cluster)?: error: [^\n]+)");
  c.has_error_line = true;
  c.command_name = "make_platform.py";
  if (!output_given)
    c.files = {{"out.xml", "<?xml"}};
  else
    c.folders = {"nodir"};  // never written: the check below refuses any file there
  Outcome o;
  std::string failure = run(c, &o);
  if (failure.empty() && o.child.exit_code == 1) failure = "exit 1 from the generator (an exception?)";
  if (failure.empty() && o.child.exit_code == 0 && !output_given) {
    // Whatever it writes, pipesim runs: a one-layer pipeline on the generated platform.
    Outcome ran;
    failure = run(run_command("out.xml", "tiny.yaml", {}), &ran);
    if (failure.empty() && ran.child.exit_code != 0)
      failure = "pipesim does not run on the generated platform: " + ran.err;
  }
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, PlatformGenerator, ::testing::Range(0, 16));

}  // namespace
}  // namespace pipesim::fuzz
