// Folding (docs/folding.md): a job simulated for one data-parallel replica
// gives the same report as the whole job, to 1e-9, and is refused where the
// replicas are not provably alike (a slower GPU, an uneven uplink, a tree
// across replicas).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>
#include <string>

#include "folding/replica_folding.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using testing::read_json;
using testing::read_text;
using testing::run_pipesim;
using testing::temp_path;
using testing::write_file;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// make_platform.py cluster ARGS as XML, edited by `edit` (a regex and its replacement), or "" when refused.
std::string cluster(const std::string& args, const std::string& name, const std::string& from = "",
                    const std::string& to = "", bool every = false) {
  const std::string out = temp_path(name);
  const std::string command =
      "python3 " + kRoot + "scripts/make_platform.py cluster " + args + " -o " + out + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return "";
  if (!from.empty())
    write_file(name, std::regex_replace(
                         read_text(out), std::regex(from), to,
                         every ? std::regex_constants::format_default : std::regex_constants::format_first_only));
  return out;
}

// Two boxes of two GPUs on a fat tree: GPU c of each box is copy c (a DP
// replica, or with TP a TP rank), pipeline rank p in box p; copy 0's two
// transfers are the pipeline's send from box 0 to box 1 and a ring's step
// to copy 1.
std::pair<RankMap, TaskGraph> two_copies(const Platform& platform, bool tp) {
  RankMap map;
  map.pp = 2;
  (tp ? map.tp : map.dp) = 2;
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 2; ++p)
      map.devices.push_back(platform.find("box" + std::to_string(p) + "-gpu" + std::to_string(c)));
  TaskGraph copy0(platform.size());
  Task send;
  send.kind = TaskKind::Transfer;
  send.amount = 1e6;
  send.device = map.device(0, 0, 0);
  send.peer = map.device(0, 0, 1);
  copy0.add(send);
  send.peer = tp ? map.device(1, 0, 0) : map.device(0, 1, 0);
  copy0.add(send);
  return {map, copy0};
}

int link_index(const Platform& platform, const std::string& name) {
  for (std::size_t l = 0; l < platform.links.size(); ++l)
    if (platform.links[l].name == name) return static_cast<int>(l);
  return -1;
}

// Two boxes of two GPUs on a fat tree; replica d on GPU d of each box,
// pipeline rank p in box p. The shift swaps the GPUs of each box: their
// NICs form orbits of 2 (weight 1), and each box's uplink, which both
// replicas' pipeline transfers cross, is its own orbit (weight 2).
TEST(ReplicaFolding, LinksSharedByReplicasCarryTheirCount) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  Simulation simulation(cluster("--boxes 2 --gpus 2 --network fat-tree", "weights.xml"));
  const Platform& platform = simulation.platform();
  const auto [map, replica0] = two_copies(platform, false);
  ASSERT_EQ(replica_devices_differ(platform, map), "");
  const Folding f = fold_replicas(platform, map, replica0);
  ASSERT_TRUE(f.folded()) << f.what;
  EXPECT_EQ(f.what, "2 data-parallel replicas simulated as one");
  EXPECT_EQ(f.device_image[static_cast<std::size_t>(platform.find("box1-gpu1"))], platform.find("box1-gpu0"));
  const auto link = [&](const std::string& name) { return link_index(platform, name); };
  EXPECT_EQ(f.link_canonical[link("box0-gpu1-nic_UP")], link("box0-gpu0-nic_UP"));
  EXPECT_EQ(f.link_weight(link("box0-gpu0-nic_UP")), 1);
  EXPECT_EQ(f.link_canonical[link("box0-uplink_UP")], link("box0-uplink_UP"));
  EXPECT_EQ(f.link_weight(link("box0-uplink_UP")), 2);
  const Platform folded = folded_platform(platform, f);
  const Path& path = folded.path(map.device(0, 0, 0), map.device(0, 0, 1));
  EXPECT_EQ(path.weights, (std::vector<double>{1, 2, 2, 1}));
  EXPECT_EQ(path.links.size(), platform.path(map.device(0, 0, 0), map.device(0, 0, 1)).links.size());
  // A slower uplink that both replicas cross alike keeps the symmetry; a
  // slower NIC on replica 1's GPU breaks it.
  Platform slow_uplink = platform;
  slow_uplink.links[link("box1-uplink_DOWN")].bandwidth /= 2;
  EXPECT_TRUE(fold_replicas(slow_uplink, map, replica0).folded());
  Platform slow_nic = platform;
  slow_nic.links[link("box0-gpu1-nic_UP")].bandwidth /= 2;
  const Folding refused = fold_replicas(slow_nic, map, replica0);
  EXPECT_FALSE(refused.folded());
  EXPECT_NE(refused.what.find("cross unlike links (box0-gpu0-nic_UP, box0-gpu1-nic_UP)"), std::string::npos)
      << refused.what;
}

// The same two boxes with one replica of TP 2 / PP 2: TP rank t on GPU t
// of each box, pipeline rank p in box p. The TP shift swaps the GPUs of
// each box as the replica shift did above: the same orbits and weights,
// rank 0's figures for rank 1, and no fold of the replicas (there is one).
TEST(ReplicaFolding, TpRanksFoldAsReplicasDo) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  Simulation simulation(cluster("--boxes 2 --gpus 2 --network fat-tree", "tp-weights.xml"));
  const Platform& platform = simulation.platform();
  const auto [map, rank0] = two_copies(platform, true);
  ASSERT_EQ(tp_devices_differ(platform, map), "");
  EXPECT_FALSE(fold_replicas(platform, map, rank0, 1, false).folded());  // one replica: nothing to fold
  const Folding f = fold_replicas(platform, map, rank0, 1, true);
  ASSERT_TRUE(f.folded()) << f.what;
  EXPECT_EQ(f.what, "2 tensor-parallel ranks simulated as one");
  EXPECT_EQ(f.copies, 2);
  EXPECT_EQ(f.device_image[static_cast<std::size_t>(platform.find("box1-gpu1"))], platform.find("box1-gpu0"));
  const auto link = [&](const std::string& name) { return link_index(platform, name); };
  EXPECT_EQ(f.link_canonical[link("box0-gpu1-nic_UP")], link("box0-gpu0-nic_UP"));
  EXPECT_EQ(f.link_weight(link("box0-gpu0-nic_UP")), 1);
  EXPECT_EQ(f.link_weight(link("box0-uplink_UP")), 2);
  // A slower NIC on TP rank 1's GPU breaks the symmetry.
  Platform slow_nic = platform;
  slow_nic.links[link("box0-gpu1-nic_UP")].bandwidth /= 2;
  EXPECT_FALSE(fold_replicas(slow_nic, map, rank0, 1, true).folded());
}

// Every number equal to 1e-9 (relative, absolute below 1), every other value
// equal but the engine's name (the summary's line is checked apart).
void expect_same(const nlohmann::json& a, const nlohmann::json& b, const std::string& at, int& differences) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (!(std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(x))) && differences++ < 5)
      ADD_FAILURE() << at << ": " << x << " folded, " << y << " whole";
    return;
  }
  if (a.type() != b.type() || a.size() != b.size()) {
    if (differences++ < 5) ADD_FAILURE() << at << ": " << a.dump().substr(0, 200) << " vs " << b.dump().substr(0, 200);
    return;
  }
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key() == "engine") continue;
      if (!b.contains(it.key())) {
        if (differences++ < 5) ADD_FAILURE() << at << "/" << it.key() << " missing";
        continue;
      }
      expect_same(it.value(), b.at(it.key()), at + "/" + it.key(), differences);
    }
  } else if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], at + "[" + std::to_string(i) + "]", differences);
  } else if (a != b && differences++ < 5) {
    ADD_FAILURE() << at << ": " << a.dump() << " vs " << b.dump();
  }
}

struct Outcome {
  bool folded = false;
  std::string engine;  // the summary's engine line
};

// Runs the job folded (the default) and whole (--no-fold, with WHOLE's
// options); both reports must agree.
Outcome run_both(const std::string& platform, const std::string& workload, const std::string& label,
                 const std::string& whole_options = "") {
  const std::string folded = temp_path("folded.json"), whole = temp_path("whole.json");
  const auto a = run_pipesim("run " + platform + " " + workload + " --json " + folded);
  const auto b =
      run_pipesim("run " + platform + " " + workload + " --json " + whole + " --no-fold --quiet " + whole_options);
  EXPECT_EQ(a.exit_code, b.exit_code) << label << a.err << b.err;
  Outcome o;
  std::smatch line;
  if (std::regex_search(a.out, line, std::regex("engine +([^\n]*)"))) o.engine = line[1];
  o.folded = o.engine.find("; folded:") != std::string::npos;
  if (a.exit_code > 1 || b.exit_code > 1) {
    ADD_FAILURE() << label << ": " << a.err << b.err;
    return o;
  }
  int differences = 0;
  expect_same(read_json(folded), read_json(whole), label, differences);
  EXPECT_EQ(differences, 0) << label << " (" << o.engine << ")";
  return o;
}

std::string workload(int tp, int pp, int dp, const std::string& order, int zero, bool clip, const std::string& schedule,
                     int microbatches) {
  return "name: fold\n"
         "model: {preset: gpt2-xl, layers: 8, hidden: 256, heads: 4, seq_length: 128, microbatch_size: 1}\n"
         "optimizer: {name: adam, clip_grad: " +
         std::string(clip ? "true" : "false") + "}\nmicrobatches: " + std::to_string(microbatches) +
         "\nschedule: " + schedule + "\nparallel: {tp: " + std::to_string(tp) + ", pp: " + std::to_string(pp) +
         ", dp: " + std::to_string(dp) + ", order: " + order + ", zero: " + std::to_string(zero) + "}\n";
}

TEST(ReplicaFolding, RandomLayoutsGiveTheWholeJobsReport) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  std::mt19937 random(2026);
  const auto pick = [&](auto options) { return options[random() % options.size()]; };
  int cases = 0, folded = 0, folded_sharded_norms = 0, folded_together = 0, folded_tp = 0, tp_alone = 0;
  for (int i = 0; cases < 24; ++i) {
    const int boxes = pick(std::vector<int>{2, 4}), gpus = pick(std::vector<int>{2, 4}), n = boxes * gpus;
    const std::string network = pick(std::vector<std::string>{"fat-tree", "rail", "ethernet"});
    const std::string over = network == "rail" ? "" : pick(std::vector<std::string>{"", " --oversubscription 2"});
    const int dp = pick(std::vector<int>{2, 4});
    const int tp = pick(std::vector<int>{1, 2, 4});
    if (n % (dp * tp) != 0 || n / (dp * tp) > 8) continue;
    const int pp = n / (dp * tp);
    const std::string order = pick(std::vector<std::string>{"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "pp-dp-tp"});
    const int zero = pick(std::vector<int>{0, 1});
    const bool clip = random() % 3 != 0;
    const int microbatches = pick(std::vector<int>{2, 4});
    std::string schedule =
        pick(std::vector<std::string>{"1f1b", "gpipe", "{name: interleaved-1f1b, virtual_stages: 2}"});
    if (schedule[0] == '{' && (microbatches % pp != 0 || 8 % (2 * pp) != 0)) schedule = "1f1b";
    const std::string args =
        "--boxes " + std::to_string(boxes) + " --gpus " + std::to_string(gpus) + " --network " + network + over;
    const std::string platform = cluster(args, "fold-" + std::to_string(i) + ".xml");
    ASSERT_FALSE(platform.empty()) << args;
    const std::string w = write_file("fold-" + std::to_string(i) + ".yaml",
                                     workload(tp, pp, dp, order, zero, clip, schedule, microbatches));
    const std::string label = args + " tp " + std::to_string(tp) + " pp " + std::to_string(pp) + " dp " +
                              std::to_string(dp) + " " + order + " zero " + std::to_string(zero) +
                              (clip ? " clip " : " ") + schedule + " mb " + std::to_string(microbatches);
    const Outcome o = run_both(platform, w, label);
    folded += o.folded;
    folded_sharded_norms += o.folded && zero >= 1 && clip;
    folded_together += o.folded && o.engine.find("replicas simulated as 2") != std::string::npos;
    folded_tp += o.engine.find("tensor-parallel ranks") != std::string::npos;
    tp_alone += o.engine.find("; folded: " + std::to_string(tp) + " tensor-parallel") != std::string::npos;
    ++cases;
  }
  // 23 of 24 fold (9 of them ZeRO 1 with clipping: the norm's sum across
  // replicas is a ring; 5 of them several replicas at a time, two sharing a
  // box; 10 their TP ranks too, 2 of those on Ethernet their TP ranks
  // alone); the other is refused for routes no shift maps onto themselves
  // (an Ethernet core whose direction depends on the boxes' order). TP
  // groups that span boxes (orders that put TP outside DP or PP) are not
  // folded.
  EXPECT_GE(folded, 23) << "of " << cases;
  EXPECT_GE(cases - folded, 1) << "of " << cases;
  EXPECT_GE(folded_sharded_norms, 9) << "of " << folded;
  EXPECT_GE(folded_together, 5) << "of " << folded;
  EXPECT_GE(folded_tp, 10) << "of " << folded;
  EXPECT_GE(tp_alone, 2) << "of " << folded;
}

// TP 4 in boxes of 8: two replicas share each box, and their DP ring
// crosses NVLink and a NIC by turns. The shift of one replica does not map
// the routes onto themselves, that of two does: replicas 0 and 1 are
// simulated for the 4, and the report is the whole job's. On a rail
// network too: every cross-rail step, the one from the last box back to the
// first included, reaches the destination's rail inside the source box (PXN).
TEST(ReplicaFolding, TwoReplicasInABoxFoldTwoByTwo) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string w = write_file("two-in-a-box.yaml", workload(4, 2, 4, "tp-dp-pp", 1, true, "1f1b", 4));
  const std::string fat_tree = cluster("--boxes 4 --gpus 8 --network fat-tree", "two-in-a-box.xml");
  const Outcome o = run_both(fat_tree, w, "fat-tree");
  EXPECT_TRUE(o.folded) << o.engine;
  EXPECT_NE(o.engine.find("folded: 4 data-parallel replicas simulated as 2"), std::string::npos) << o.engine;
  const std::string rail = cluster("--boxes 4 --gpus 8 --network rail", "two-in-a-box-rail.xml");
  const Outcome r = run_both(rail, w, "rail");
  EXPECT_TRUE(r.folded) << r.engine;
  EXPECT_NE(r.engine.find("folded: 4 data-parallel replicas simulated as 2"), std::string::npos) << r.engine;
}

// DualPipeV's overlapped pairs share each GPU (the analytic engine as
// SimGrid's CPU model): its replicas fold, and the folded report is the one
// SimGrid gives the whole job.
TEST(ReplicaFolding, DualPipeVsOverlappedPairsFold) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string w = write_file("dualpipev.yaml", workload(1, 2, 4, "tp-dp-pp", 0, true, "dualpipev", 4));
  const std::string rail = cluster("--boxes 2 --gpus 4 --network rail", "dualpipev.xml");
  const Outcome o = run_both(rail, w, "dualpipev", "--engine simgrid");
  EXPECT_TRUE(o.folded) << o.engine;
  EXPECT_EQ(o.engine.rfind("analytic", 0), 0u) << o.engine;
}

// One GPU slower than its peers: its replica is not its images', nothing folds, and the report is the whole job's.
TEST(ReplicaFolding, ASlowerGpuKeepsEveryReplica) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string w = write_file("slow.yaml", workload(1, 2, 2, "tp-dp-pp", 0, true, "1f1b", 4));
  const std::string even = cluster("--boxes 2 --gpus 2 --network fat-tree", "even.xml");
  EXPECT_TRUE(run_both(even, w, "even").folded);
  const std::string slow = cluster("--boxes 2 --gpus 2 --network fat-tree", "slow.xml",
                                   "id=\"box1-gpu1\" speed=\"156Tf\"", "id=\"box1-gpu1\" speed=\"120Tf\"");
  const Outcome o = run_both(slow, w, "slow");
  EXPECT_FALSE(o.folded);
  EXPECT_NE(o.engine.find("not folded: devices box1-gpu0 and box1-gpu1 (the same rank in replicas 0 and 1) differ"),
            std::string::npos)
      << o.engine;
}

// One replica whose TP ranks do not fold (a tree all-reduce) says why, as
// a job of several replicas does; its ring twin folds.
TEST(ReplicaFolding, TpRanksThatDoNotFoldSayWhy) {
  const std::string run = "run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot +
                          "workloads/examples/small-gpt.yaml --set parallel.tp=2 --set parallel.tp_algorithm=";
  const auto tree = run_pipesim(run + "tree");
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_NE(tree.out.find(", not folded: a tensor-parallel all-reduce of 2.00 MiB runs as a tree, not a ring"),
            std::string::npos)
      << tree.out;
  const auto ring = run_pipesim(run + "ring");
  ASSERT_EQ(ring.exit_code, 0) << ring.err;
  EXPECT_NE(ring.out.find("folded: 2 tensor-parallel ranks simulated as one"), std::string::npos) << ring.out;
}

// One box's uplink narrower than the others': the replicas' routes differ, nothing folds.
TEST(ReplicaFolding, AnUnevenUplinkKeepsEveryReplica) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string w = write_file("uplink.yaml", workload(1, 2, 4, "pp-dp-tp", 0, true, "1f1b", 4));
  const std::string even = cluster("--boxes 4 --gpus 2 --network fat-tree", "even4.xml");
  EXPECT_TRUE(run_both(even, w, "even").folded);
  const std::string uneven =
      cluster("--boxes 4 --gpus 2 --network fat-tree", "uneven.xml", "id=\"box2-uplink\" bandwidth=\"25GBps\"",
              "id=\"box2-uplink\" bandwidth=\"20GBps\"");
  const Outcome o = run_both(uneven, w, "uneven");
  EXPECT_FALSE(o.folded);
  EXPECT_NE(o.engine.find("cross unlike links"), std::string::npos) << o.engine;
}

// GPUs too small for the job: every replica's violation is reported, as the whole job's run reports them.
TEST(ReplicaFolding, MemoryViolationsRepeatOnEveryReplica) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string w = write_file("small-gpus.yaml", workload(1, 2, 2, "tp-dp-pp", 0, true, "1f1b", 4));
  const std::string small =
      cluster("--boxes 2 --gpus 2 --network fat-tree", "small.xml", "value=\"80GiB\"", "value=\"100MiB\"", true);
  EXPECT_TRUE(run_both(small, w, "small").folded);
  const nlohmann::json j = read_json(temp_path("folded.json"));
  EXPECT_EQ(j["violations"].size(), 4u);
  EXPECT_EQ(j["violations"][3]["device"], "box1-gpu1");
}

// The first code block after `heading` in docs/folding.md, without its fences.
std::string example_after(const std::string& heading) {
  const std::string text = read_text(kRoot + "docs/folding.md");
  const std::size_t open = text.find("```", text.find(heading));
  const std::size_t begin = text.find('\n', open) + 1;
  return text.substr(begin, text.find("```", begin) - begin);
}

TEST(ReplicaFolding, TheDocsExamplesAreWhatTheRunPrints) {
  const std::string run = "run platforms/a100-4x8-rail-200g.yaml workloads/examples/gpt3-13b-tp8.yaml";
  const std::string dir = kRoot;
  const std::string tree = " --set parallel.zero=0 --set parallel.dp_algorithm=tree";
  const auto first = run_pipesim(run, "", dir);
  const auto second = run_pipesim(run + tree, "", dir);
  const auto three_lines = [](const std::string& out) {
    std::size_t end = 0;
    for (int i = 0; i < 3; ++i) end = out.find('\n', end) + 1;
    return out.substr(0, end);
  };
  EXPECT_EQ(example_after("# Folding"), "$ pipesim " + run + "\n" + three_lines(first.out));
  EXPECT_EQ(example_after("The `engine` line says"), "$ pipesim " + run + tree + "\n" + three_lines(second.out));
}

}  // namespace
}  // namespace pipesim
