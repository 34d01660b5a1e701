// The whole job: TP x PP x DP layouts, their collectives on the network and
// their closed forms (parallelism/, layout/, docs/parallelism.md).
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "models/transformer.hpp"
#include "parallelism/job.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim::testing {
namespace {

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

nlohmann::json run_json(const std::string& platform, const std::string& workload_text, const std::string& name) {
  const std::string w = write_file(name + ".yaml", workload_text), json = temp_path(name + ".json");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --quiet --json " + json);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << name << ": " << r.err;
  if (!std::filesystem::exists(json)) return nlohmann::json::object();
  return nlohmann::json::parse(read_text(json));
}

// Two layers of 200 M parameters each, GPipe over two stages.
const std::string kChain =
    "microbatches: 2\ninput: 1MB\nschedule: gpipe\n"
    "layers:\n"
    "  - {name: a, forward: 1s, backward: 2s, activation: 100MB, weights: 400MB}\n"
    "  - {name: b, forward: 1s, backward: 2s, activation: 100MB, weights: 400MB}\n";

// DP x PP iteration = PP iteration + the exposed gradient reduction: with
// the reduction after the backward (no overlap), stage 0 finishes last and
// its ring all-reduce of 400 MB over 2 ranks adds 2(n-1).a + 2(n-1)/n.S/B.
TEST(ParallelJob, DataParallelAddsTheRingAllReduceOfTheLastStage) {
  const nlohmann::json pp = run_json(complete_platform(2, "1GBps", "1ms"), kChain + "parallel: {pp: 2}\n", "pp");
  const nlohmann::json dp =
      run_json(complete_platform(4, "1GBps", "1ms"),
               kChain + "parallel: {pp: 2, dp: 2, overlap_gradient_reduce: false, bucket: 1GB}\n", "dp");
  const double n = 2, alpha = 1e-3, S = 400e6, B = 1e9;
  const double ring = 2 * (n - 1) * alpha + 2 * (n - 1) / n * S / B;
  EXPECT_NEAR(dp["makespan"].get<double>(), pp["makespan"].get<double>() + ring, 1e-9);
  const nlohmann::json* grads = find_purpose(dp, "dp gradients");
  ASSERT_NE(grads, nullptr);
  EXPECT_EQ((*grads)["calls"], 2);  // one bucket per stage
  EXPECT_DOUBLE_EQ((*grads)["bytes"].get<double>(), 2 * S);
  EXPECT_EQ((*grads)["operation"], "all-reduce");
  EXPECT_EQ((*grads)["group_size"], 2);
  // Both reductions are wholly exposed: after its last backward a GPipe
  // stage has nothing left to compute.
  EXPECT_NEAR((*grads)["exposed_time"].get<double>(), 2 * ring, 1e-9);
  EXPECT_NEAR(dp["throughput"].get<double>(), 2 * 2 / dp["makespan"].get<double>(), 1e-12);  // two replicas
  EXPECT_EQ(find_purpose(pp, "dp gradients"), nullptr);
  // A link per pair: no two transfers share one, so the analytic engine is exact and runs.
  EXPECT_EQ(dp["engine"], "analytic");
}

// In a job each replica sums its tied gradient between its first and last
// stage, after the DP reduction (Megatron's finalize_model_grads): pp 2,
// dp 2, one 2-rank all-reduce per replica, each over a link of its own.
// From the first stage's DP reduction on it takes 2(n-1)a + 2(n-1)/n S/B
// (S = V h = 64,000 parameters at 2 bytes), which the iteration gains over
// the untied model's (the optimizer steps, at 1000 TB/s, take nanoseconds).
// With one stage there is no second copy to sum with.
TEST(ParallelJob, TiedEmbeddingsSumTheirGradientInEachReplica) {
  const std::string platform = write_file(
      "tied-4.xml", complete_platform_xml(4, "1GBps", "1ms", "1Tf", "1TiB", {{"memory_bandwidth", "1000TBps"}}));
  const std::string model =
      "name: tiny\nmodel: {layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16, learned_positions: false, "
      "tied_embeddings: true}\nmicrobatches: 2\nschedule: 1f1b\n";
  const nlohmann::json j = run_json(platform, model + "parallel: {pp: 2, dp: 2}\n", "tied-job");
  std::string untied_model = model;
  untied_model.replace(untied_model.find("tied_embeddings: true"), 21, "tied_embeddings: false");
  const nlohmann::json untied = run_json(platform, untied_model + "parallel: {pp: 2, dp: 2}\n", "untied-job");
  const double S = 1000 * 64 * 2, sum = 2 * 1e-3 + S / 1e9;
  const nlohmann::json* c = find_purpose(j, "tied embedding");
  ASSERT_NE(c, nullptr) << j.dump();
  EXPECT_EQ((*c)["calls"], 2);
  EXPECT_EQ((*c)["group_size"], 2);
  EXPECT_DOUBLE_EQ((*c)["bytes"].get<double>(), 2 * S);
  EXPECT_GE((*c)["time"].get<double>(), 2 * sum - 1e-12);
  EXPECT_NEAR(j["makespan"].get<double>() - untied["makespan"].get<double>(), sum, 1e-8);
  ASSERT_NE(find_purpose(j, "dp gradients"), nullptr);
  EXPECT_EQ(find_purpose(run_json(platform, model + "parallel: {pp: 1, dp: 4}\n", "tied-dp"), "tied embedding"),
            nullptr);
}

// The gradients' norm before a clipped step is all-reduced over each
// replica's model-parallel ranks, or over every rank with the distributed
// optimizer, whose ranks each hold a shard (Megatron-core's
// get_grad_stats_parallel_group): one fp32 each time, summed one layout
// dimension at a time (inside each stage's TP group, then across the stages
// of each TP rank, then across replicas).
TEST(ParallelJob, GradientNormIsAllReducedOverTheModelParallelRanksOrAll) {
  const std::string platform = write_file(
      "norm-8.xml", complete_platform_xml(8, "1GBps", "1ms", "1Tf", "1TiB", {{"memory_bandwidth", "1TBps"}}));
  const std::string model =
      "name: tiny\nmodel: {layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16}\nmicrobatches: 2\n"
      "schedule: 1f1b\n";
  const nlohmann::json ddp = run_json(platform, model + "parallel: {tp: 2, pp: 2, dp: 2}\n", "norm-ddp");
  const nlohmann::json* inside = find_purpose(ddp, "tp gradient norm");
  ASSERT_NE(inside, nullptr) << ddp.dump();
  EXPECT_EQ((*inside)["calls"], 4);  // per replica and stage
  EXPECT_EQ((*inside)["group_size"], 2);
  EXPECT_DOUBLE_EQ((*inside)["bytes"].get<double>(), 4 * 4);
  const nlohmann::json* norm = find_purpose(ddp, "gradient norm");
  ASSERT_NE(norm, nullptr) << ddp.dump();
  EXPECT_EQ((*norm)["calls"], 4);  // per replica and TP rank
  EXPECT_EQ((*norm)["group_size"], 2);
  EXPECT_DOUBLE_EQ((*norm)["bytes"].get<double>(), 4 * 4);
  const nlohmann::json zero = run_json(platform, model + "parallel: {tp: 2, pp: 2, dp: 2, zero: 1}\n", "norm-zero");
  // With the distributed optimizer every rank's norm is summed: over each
  // replica's model-parallel ranks, then across the replicas by a ring over
  // each rank's DP group (one per pipeline stage and TP rank).
  norm = find_purpose(zero, "gradient norm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ((*norm)["calls"], 4);
  EXPECT_EQ((*norm)["group_size"], 2);
  const nlohmann::json* across = find_purpose(zero, "dp gradient norm");
  ASSERT_NE(across, nullptr) << zero.dump();
  EXPECT_EQ((*across)["calls"], 4);
  EXPECT_EQ((*across)["group_size"], 2);
  EXPECT_EQ((*across)["algorithm"], "ring");
  EXPECT_EQ(find_purpose(ddp, "dp gradient norm"), nullptr);
  const nlohmann::json unclipped = run_json(
      platform, model + "optimizer: {name: adam, clip_grad: false}\nparallel: {tp: 2, pp: 2, dp: 2}\n", "no-norm");
  EXPECT_EQ(find_purpose(unclipped, "gradient norm"), nullptr);
}

// One link per GPU to a switch: the pipeline's transfer and the gradient
// all-reduce leave gpu2 on one link at once. The analytic engine shares it
// as SimGrid does: the same report from both.
TEST(ParallelJob, CollectivesSharingALinkAreSharedAsSimGridSharesThem) {
  const std::string w =
      write_file("shared.yaml", kChain + "parallel: {pp: 2, dp: 2, overlap_gradient_reduce: false, bucket: 1GB}\n");
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  nlohmann::json engines[2];
  const char* names[2] = {"analytic", "simgrid"};
  for (int e = 0; e < 2; ++e) {
    const std::string json = temp_path(std::string("shared-") + names[e] + ".json");
    const CliResult r = run_pipesim("run " + platform + " " + w + " --quiet --engine " + names[e] + " --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    engines[e] = nlohmann::json::parse(read_text(json));
    EXPECT_EQ(engines[e]["engine"], names[e]);
  }
  EXPECT_TRUE(engines[0]["valid"].get<bool>());
  EXPECT_NEAR(engines[0]["makespan"].get<double>(), engines[1]["makespan"].get<double>(),
              1e-9 * engines[1]["makespan"].get<double>());
  EXPECT_EQ(engines[0]["devices"].size(), engines[1]["devices"].size());
  for (std::size_t d = 0; d < engines[0]["devices"].size(); ++d)
    EXPECT_EQ(engines[0]["devices"][d]["peak_memory"], engines[1]["devices"][d]["peak_memory"]);
}

// Megatron's overlap: with a bucket per layer, stage 0's last backward is
// cut after its top layer, whose bucket then reduces while the layer below
// computes (2 s against 0.402 s): only the last bucket is exposed. Without
// overlap both buckets run after the backward, one after the other.
TEST(ParallelJob, BucketsReduceWhileTheLastBackwardRuns) {
  const std::string chain =
      "microbatches: 2\ninput: 1MB\nschedule: gpipe\nlayers:\n"
      "  - {name: a, forward: 1s, backward: 2s, activation: 100MB, weights: 400MB, repeat: 4}\n";
  const double ring = 2 * 1e-3 + 400e6 / 1e9;
  const double pp = run_json(complete_platform(2, "1GBps", "1ms"), chain + "parallel: {pp: 2}\n", "pp4")["makespan"];
  const double off =
      run_json(complete_platform(4, "1GBps", "1ms"),
               chain + "parallel: {pp: 2, dp: 2, bucket: 400MB, overlap_gradient_reduce: false}\n", "off")["makespan"];
  const nlohmann::json on =
      run_json(complete_platform(4, "1GBps", "1ms"), chain + "parallel: {pp: 2, dp: 2, bucket: 400MB}\n", "on");
  EXPECT_NEAR(off, pp + 2 * ring, 1e-9);
  EXPECT_NEAR(on["makespan"].get<double>(), pp + ring, 1e-9);
  EXPECT_EQ((*find_purpose(on, "dp gradients"))["calls"], 4);  // a bucket per layer
}

// ZeRO-1: the gradients are reduce-scattered, the weights all-gathered after the step.
TEST(ParallelJob, DistributedOptimizerReduceScattersAndGathers) {
  const nlohmann::json j = run_json(complete_platform(4, "1GBps", "1ms"),
                                    kChain + "parallel: {pp: 2, dp: 2, zero: 1, bucket: 1GB}\n", "zero1");
  const nlohmann::json* grads = find_purpose(j, "dp gradients");
  const nlohmann::json* weights = find_purpose(j, "dp weights");
  ASSERT_NE(grads, nullptr);
  EXPECT_EQ((*grads)["operation"], "reduce-scatter");
  EXPECT_EQ((*grads)["calls"], 2);
  // Without an optimizer there is no step, so nothing to gather: the workload has none.
  EXPECT_EQ(weights, nullptr);
}

// overlap_param_gather (Megatron's --overlap-param-gather): the weights'
// all-gather leaves the end of the iteration for its start, where the first
// forward waits for the lowest layers' bucket alone and the first backward
// for the rest. One stage of four 400 MB layers over 2 replicas, a bucket
// per layer: a ring all-gather of S bytes over 2 ranks takes a + S/2/B, so
// after the step it adds a + 0.8 s, at the start only its first bucket's
// a + 0.2 s (the other three, a + 0.6 s, end long before the first backward).
// With one bucket holding every layer, the forward waits for all of it: the
// same iteration either way.
TEST(ParallelJob, OverlappedWeightGatherExposesOnlyTheFirstBucket) {
  const std::string chain =
      "microbatches: 2\ninput: 1MB\nschedule: gpipe\noptimizer: {name: adam, clip_grad: false}\nlayers:\n"
      "  - {name: a, forward: 1s, backward: 2s, activation: 100MB, weights: 400MB, repeat: 4}\n";
  const std::string platform = write_file(
      "gather-2.xml", complete_platform_xml(2, "1GBps", "1ms", "1Tf", "1TiB", {{"memory_bandwidth", "1000TBps"}}));
  const auto run = [&](const std::string& parallel, const std::string& name) {
    return run_json(platform, chain + "parallel: {" + parallel + "}\n", name);
  };
  const double a = 1e-3, B = 1e9, S = 4 * 400e6;
  const nlohmann::json after = run("dp: 2, zero: 1, bucket: 400MB", "after");
  const nlohmann::json overlapped = run("dp: 2, zero: 1, bucket: 400MB, overlap_param_gather: true", "overlapped");
  EXPECT_NEAR(after.value("makespan", 0.0) - overlapped.value("makespan", 0.0), (a + S / 2 / B) - (a + S / 4 / 2 / B),
              1e-9);
  for (const nlohmann::json* j : {&after, &overlapped}) ASSERT_NE(find_purpose(*j, "dp weights"), nullptr);
  EXPECT_EQ((*find_purpose(after, "dp weights"))["calls"], 1);
  EXPECT_EQ((*find_purpose(overlapped, "dp weights"))["calls"], 2);  // the first bucket, then the rest
  EXPECT_NEAR(run("dp: 2, zero: 1, bucket: 4GB, overlap_param_gather: true", "one-bucket").value("makespan", 0.0),
              run("dp: 2, zero: 1, bucket: 4GB", "one-bucket-after").value("makespan", 0.0), 1e-9);
}

// Rank order: with tp-dp-pp a DP group is two neighbours (gpu0, gpu1) and
// the pipeline gpu0 -> gpu2; with pp-dp-tp the reverse. Link gpu0-gpu2
// carries the pipeline's 2 x 100 MB each way, or the 2-rank ring's
// 2 x 200 MB of gradients each way.
TEST(ParallelJob, RankOrderPlacesTheGroups) {
  const std::string platform = complete_platform(4, "1GBps", "1ms");
  const std::map<std::string, double> link_0_2 = {{"tp-dp-pp", 200e6}, {"pp-dp-tp", 400e6}};
  for (const auto& [order, bytes] : link_0_2) {
    const nlohmann::json j =
        run_json(platform, kChain + "parallel: {pp: 2, dp: 2, bucket: 1GB, order: " + order + "}\n", order);
    ASSERT_TRUE(j.contains("links")) << order;
    bool found = false;
    for (const auto& link : j["links"])
      if (link["name"] == "l0-2_UP") {
        found = true;
        EXPECT_DOUBLE_EQ(link["bytes"].get<double>(), bytes) << order;
      }
    EXPECT_TRUE(found) << order;
  }
}

// An explicit device list puts rank r on its r-th host.
TEST(ParallelJob, ExplicitDevicesPlaceThePipeline) {
  const nlohmann::json j =
      run_json(complete_platform(4, "1GBps", "1ms"), kChain + "parallel: {pp: 2, devices: [gpu3, gpu1]}\n", "explicit");
  ASSERT_TRUE(j.contains("devices"));
  const auto& devices = j["devices"];
  EXPECT_EQ(devices[0]["tasks"], 0);
  EXPECT_GT(devices[1]["tasks"].get<int>(), 0);
  EXPECT_EQ(devices[2]["tasks"], 0);
  EXPECT_GT(devices[3]["tasks"].get<int>(), 0);
}

// `gpus: N` takes the platform's first N compute devices, in order: the
// job of an explicit list of them, byte for byte.
TEST(ParallelJob, GpusTakeThePlatformsFirstDevices) {
  const std::string platform = complete_platform(4, "1GBps", "1ms");
  const nlohmann::json first = run_json(platform, kChain + "parallel: {pp: 2, gpus: 2}\n", "first");
  const nlohmann::json listed = run_json(platform, kChain + "parallel: {pp: 2, devices: [gpu0, gpu1]}\n", "listed");
  ASSERT_TRUE(first.contains("devices"));
  EXPECT_EQ(first, listed);
  EXPECT_GT(first["devices"][0]["tasks"].get<int>(), 0);
  EXPECT_GT(first["devices"][1]["tasks"].get<int>(), 0);
  EXPECT_EQ(first["devices"][2]["tasks"], 0);
  EXPECT_EQ(first["devices"][3]["tasks"], 0);
  // pp left out: the GPUs given, not the platform's, divided by tp x dp.
  EXPECT_EQ(run_json(platform, kChain + "parallel: {gpus: 2}\n", "pp-from-gpus"), listed);
}

// Megatron's tensor parallelism divides every matrix product by tp
// (Shoeybi et al. 2019): the layer's flops per rank are exactly 1/tp.
TEST(ParallelJob, TensorParallelismSplitsComputeExactly) {
  TransformerConfig c;
  c.name = "t";
  c.layers = 2;
  c.hidden = 256;
  c.heads = 8;
  c.vocab = 1024;
  c.seq_length = 128;
  const ModelChain one = transformer_chain(c);
  for (const int tp : {2, 4, 8}) {
    c.tp = tp;
    const ModelChain split = transformer_chain(c);
    for (std::size_t l = 1; l < one.layers.size(); ++l) {  // the embedding is a lookup: no flops
      EXPECT_NEAR(split.layers[l].forward.flops, one.layers[l].forward.flops / tp, 1e-6 * one.layers[l].forward.flops);
      EXPECT_NEAR(split.layers[l].model_flops, one.layers[l].model_flops / tp, 1e-6 * one.layers[l].model_flops);
    }
    // Each block all-reduces its b.s.h output twice each way (the g and f operators).
    EXPECT_EQ(split.layers[1].tp.forward.all_reduce, 2);
    EXPECT_EQ(split.layers[1].tp.backward.all_reduce, 2);
    EXPECT_DOUBLE_EQ(split.layers[1].tp.bytes, 2.0 * 128 * 256);
  }
}

const std::string kSmallModel =
    "model: {layers: 6, hidden: 256, heads: 8, vocab: 1024, seq_length: 128, microbatch_size: 1}\n"
    "optimizer: {name: adam}\nmicrobatches: 4\n";

// Every block runs 2 TP collectives in its forward and 2 in its input
// gradient; the embedding one forward, the head one backward.
TEST(ParallelJob, EveryFamilyRunsUnderTpPpDp) {
  const int L = 6, microbatches = 4, dp = 2;
  const long long per_pass = 2 * L + 1;
  for (const std::string schedule :
       {"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-auto", "interleaved-zb", "zbv",
        "dualpipev", "kfkb", "1f1b-pattern", "pipedream", "ilp", "{name: master, scheme: lpp, G: 1, R: 2}"}) {
    const nlohmann::json j =
        run_json(kRoot + "platforms/nvswitch-8gpu.xml",
                 kSmallModel + "schedule: " + schedule + "\nparallel: {tp: 2, pp: 2, dp: 2}\n", "family");
    ASSERT_TRUE(j.contains("devices")) << schedule;
    for (const auto& d : j["devices"]) EXPECT_GT(d["tasks"].get<int>(), 0) << schedule;
    const nlohmann::json* forward = find_purpose(j, "tp forward");
    const nlohmann::json* backward = find_purpose(j, "tp backward");
    const nlohmann::json* grads = find_purpose(j, "dp gradients");
    ASSERT_TRUE(forward && backward && grads) << schedule;
    EXPECT_EQ((*forward)["calls"].get<long long>(), per_pass * microbatches * dp) << schedule;
    EXPECT_EQ((*backward)["calls"].get<long long>(), per_pass * microbatches * dp) << schedule;
    EXPECT_EQ((*forward)["group_size"], 2) << schedule;
    EXPECT_GT(j["training"]["tokens_per_second"].get<double>(), 0) << schedule;
  }
}

// Without overlap_tp a pass waits for the TP collectives of the pass before
// it in its device's order, also where the generator made that pass later
// (zero-bubble and interleaved orders run an F made early after an I made
// late): its dependencies include the last done marker of that pass's
// collectives (same stage, micro-batch and iteration) on its device.
TEST(ParallelJob, TheNextPassWaitsForTheCollectivesOfTheOneBeforeItInOrder) {
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  Simulation simulation(platform);
  for (const std::string schedule : {"zb-h1", "zbv", "interleaved-1f1b", "1f1b"}) {
    const std::string w =
        write_file("order.yaml", kSmallModel + "schedule: " + schedule + "\nparallel: {tp: 2, pp: 2, dp: 1}\n");
    const Workload timed = time_model_layers(load_workload(w), simulation.platform());
    const TaskGraph job = generate_job(timed, simulation.platform()).graph;
    std::size_t links = 0;
    for (int d = 0; d < job.device_count(); ++d) {
      const std::vector<TaskId>& order = job.device_order(d);
      for (std::size_t i = 1; i < order.size(); ++i) {
        const Task a = job.task(order[i - 1]);
        if (a.kind != TaskKind::Forward && a.kind != TaskKind::BackwardInput && a.kind != TaskKind::Backward) continue;
        bool waits = false;
        for (const TaskId* y = job.deps_begin(order[i]); y != job.deps_end(order[i]); ++y) {
          const Task dep = job.task(*y);
          waits = waits || (dep.kind == TaskKind::Transfer && dep.collective >= 0 && dep.device == d &&
                            dep.stage == a.stage && dep.microbatch == a.microbatch && dep.iteration == a.iteration);
        }
        EXPECT_TRUE(waits) << schedule << ": device " << d << " position " << i;
        ++links;
      }
    }
    EXPECT_GT(links, 8u) << schedule;
  }
}

// Without overlap_p2p (Megatron's point-to-point calls wait on their
// requests) a pass waits for the sends of the pass before it on its device.
// 1F1B over two stages, two micro-batches, 100 MB tensors over a 1 GB/s,
// 1 ms link: the last stage's second forward now waits for the gradient
// its first backward sends, and the iteration grows by that one transfer,
// a + S/B (the first stage's second forward waited for its send already in
// effect: its backward needs the gradient anyway later).
TEST(ParallelJob, BlockingSendsHoldTheSendersNextPass) {
  std::string chain = kChain;
  chain.replace(chain.find("schedule: gpipe"), 15, "schedule: 1f1b");
  const std::string platform = complete_platform(2, "1GBps", "1ms");
  const nlohmann::json overlapped = run_json(platform, chain + "parallel: {pp: 2}\n", "p2p-overlapped");
  const nlohmann::json blocking = run_json(platform, chain + "parallel: {pp: 2, overlap_p2p: false}\n", "p2p-blocking");
  EXPECT_NEAR(blocking["makespan"].get<double>() - overlapped["makespan"].get<double>(), 1e-3 + 100e6 / 1e9, 1e-9);
}

// Megatron's scatter/gather (Narayanan et al. 2021, section 4.1): without
// sequence parallelism every TP rank holds the boundary tensor whole, sends
// 1/tp of it, and the receiving TP group all-gathers it: one all-gather of
// the b.s.h tensor per pipeline transfer (pp 2, 4 micro-batches: 4 forward
// and 4 backward transfers), none with scatter_gather off or with sequence
// parallelism (the tensor is already divided).
TEST(ParallelJob, ScatterGatherSendsATpShareThenGathersIt) {
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  const std::string job = kSmallModel + "schedule: 1f1b\n";
  const nlohmann::json on = run_json(platform, job + "parallel: {tp: 2, pp: 2}\n", "scatter-on");
  const nlohmann::json* gather = find_purpose(on, "pipeline gather");
  ASSERT_NE(gather, nullptr);
  const double whole = 2.0 * 128 * 256;  // b.s.h at 2 bytes
  EXPECT_EQ((*gather)["operation"], "all-gather");
  EXPECT_EQ((*gather)["group_size"], 2);
  EXPECT_EQ((*gather)["calls"], 8);
  EXPECT_DOUBLE_EQ((*gather)["bytes"].get<double>(), 8 * whole);
  const nlohmann::json off =
      run_json(platform, job + "parallel: {tp: 2, pp: 2, scatter_gather: false}\n", "scatter-off");
  EXPECT_EQ(find_purpose(off, "pipeline gather"), nullptr);
  std::string sp = job;
  sp.replace(sp.find("microbatch_size: 1"), 18, "microbatch_size: 1, sequence_parallel: true");
  EXPECT_EQ(find_purpose(run_json(platform, sp + "parallel: {tp: 2, pp: 2}\n", "scatter-sp"), "pipeline gather"),
            nullptr);
}

// With the boxes' nodes known, the DP gradients can reduce inside each box
// first (two GPUs of each DP group per box under tp-dp-pp).
TEST(ParallelJob, HierarchicalGradientReductionAcrossBoxes) {
  const nlohmann::json j =
      run_json(kRoot + "platforms/two-nvswitch-4gpu-infiniband-100g.xml",
               kSmallModel + "parallel: {tp: 2, pp: 1, dp: 4, dp_algorithm: hierarchical}\n", "hierarchical");
  const nlohmann::json* grads = find_purpose(j, "dp gradients");
  ASSERT_NE(grads, nullptr);
  EXPECT_EQ((*grads)["algorithm"], "hierarchical");
  EXPECT_EQ((*grads)["group_size"], 4);
  EXPECT_EQ((*find_purpose(j, "tp forward"))["algorithm"], "ring");
}

// The job is counted before it is built: the copies and their collectives
// against --max-memory, as a schedule too large is.
TEST(ParallelJob, AJobTooLargeToSimulateIsRefusedBeforeItIsBuilt) {
  const std::string w = write_file("large-job.yaml", kSmallModel + "parallel: {tp: 2, pp: 2, dp: 2}\n");
  const CliResult ok = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + w + " --quiet --max-memory 1GiB");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const std::string large =
      "run " + kRoot + "platforms/nvswitch-8gpu.xml " + w + " --set microbatches=64 --max-memory 53MiB";
  const CliResult r = run_pipesim(large + " --no-fold");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pipesim: error: " + w + ": parallel: this job needs about ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("4 copies of the pipeline and their collectives"), std::string::npos) << r.err;
  // Folded (docs/folding.md), one replica's 2 copies are built: it fits.
  const CliResult folded = run_pipesim(large + " --quiet");
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
}

struct BadLayout {
  std::string name, text, field, message;
};

TEST(ParallelJob, BadLayoutIsOneLineNamingTheField) {
  const BadLayout cases[] = {
      {"product", kChain + "parallel: {pp: 2, dp: 3}\n", "parallel", "tp x pp x dp = 1 x 2 x 3 = 6 ranks"},
      {"not dividing", kChain + "parallel: {dp: 3}\n", "parallel", "does not divide"},
      {"twice", kChain + "parallel: {pp: 2, devices: [gpu0, gpu0]}\n", "line 7: parallel.devices[1]", "given twice"},
      {"unknown host", kChain + "parallel: {pp: 2, devices: [gpu0, gpu9]}\n", "parallel.devices[1]", "no host 'gpu9'"},
      {"tp of a chain", kChain + "parallel: {tp: 2}\n", "line 7: parallel.tp", "needs a 'model:' section"},
      {"order", kChain + "parallel: {order: tp-pp}\n", "line 7: parallel.order", "each once"},
      {"algorithm", kChain + "parallel: {dp: 2, dp_algorithm: butterfly}\n", "line 7: parallel.dp_algorithm",
       "expected one of auto, ring, tree, hierarchical"},
      {"hierarchical without nodes", kChain + "parallel: {pp: 2, dp: 2, dp_algorithm: hierarchical}\n",
       "parallel.dp_algorithm", "needs the node of every device"},
      {"zero 3", kChain + "parallel: {dp: 2, zero: 3}\n", "parallel.zero", "ZeRO-3"},
      {"gpus beyond the platform", kChain + "parallel: {pp: 2, gpus: 5}\n", "parallel.gpus", "5 GPUs, but"},
      {"gpus and devices", kChain + "parallel: {pp: 2, gpus: 2, devices: [gpu0, gpu1]}\n", "line 7: parallel.gpus",
       "give gpus (the platform's first N compute devices) or devices, not both"},
      {"gpus not the ranks", kChain + "parallel: {pp: 2, dp: 2, gpus: 2}\n", "parallel",
       "= 4 ranks, but there are 2 GPUs in parallel.gpus"},
      {"gpus zero", kChain + "parallel: {gpus: 0}\n", "line 7: parallel.gpus", "an integer >= 1"},
      {"tp not dividing heads", kSmallModel + "parallel: {tp: 3, pp: 1, dp: 1}\n", "model.tp", "divide"},
  };
  const std::string platform = complete_platform(4);
  for (const BadLayout& c : cases) {
    const std::string w = write_file("bad-layout.yaml", c.text), json = temp_path("bad-layout.json");
    const CliResult r = run_pipesim("run " + platform + " " + w + " --json " + json);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("pipesim: error: " + w + ": " + c.field + ": ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(json)) << c.name;
  }
}

// The figures printed beside a TP x PP x DP run, against Megatron's count
// of a GPT iteration's model flops (Narayanan et al., SC'21, eq. 3):
// 72.B.s.l.h^2 (1 + s/6h + V/12lh) for a global batch of B sequences.
TEST(ParallelJob, MfuAndTokensUnderTpPpDpMatchMegatronsCount) {
  const nlohmann::json j = run_json(kRoot + "platforms/nvswitch-8gpu.xml",
                                    kSmallModel + "schedule: 1f1b\nparallel: {tp: 2, pp: 2, dp: 2}\n", "mfu");
  ASSERT_TRUE(j.contains("training"));
  const nlohmann::json& t = j["training"];
  const double l = 6, h = 256, V = 1024, s = 128, B = 4 /*micro-batches*/ * 1 /*size*/ * 2 /*dp*/;
  const double flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(t["model_flops_per_iteration"].get<double>(), flops, 1e-9 * flops);
  const double seconds = j["makespan"].get<double>();
  EXPECT_EQ(t["gpus"], 8);
  EXPECT_NEAR(t["tokens_per_second"].get<double>(), B * s / seconds, 1e-9 * B * s / seconds);
  const double mfu = flops / (seconds * 8 * t["peak_flops_per_gpu"].get<double>());
  EXPECT_NEAR(t["mfu"].get<double>(), mfu, 1e-9 * mfu);
}

// A V schedule runs two stages on each rank: six layers on pp 4 leave a
// rank without any. The family counts its ranks before building
// (ScheduleSize::ranks, as many as the generated graph uses), so the job is
// refused unbuilt, with the reason check_pipeline_ranks gives a built one:
// at 10^8 micro-batches a build would be refused for its memory first.
TEST(ParallelJob, TooFewLayersForEveryRankIsRefusedUnbuilt) {
  const auto chain = [](int layers, const std::string& microbatches) {
    std::string text = "microbatches: " + microbatches + "\ninput: 1MB\nlayers:\n";
    for (int l = 0; l < layers; ++l) text += "  - {forward: 1s, backward: 2s, activation: 1MB}\n";
    return text;
  };
  Simulation sim(complete_platform(4));
  for (const auto& [schedule, ranks] : std::vector<std::pair<std::string, int>>{
           {"zbv", 4}, {"dualpipev", 4}, {"zb-h1", 4}, {"{name: interleaved-1f1b, virtual_stages: 4}", 2}}) {
    const Workload w = load_workload(write_file("ranks.yaml", chain(8, "8") + "schedule: " + schedule + "\n"), {});
    const GeneratedSchedule built = generate(w, sim.platform());
    int used = 0;
    for (int d = 0; d < built.graph.device_count(); ++d) used += !built.graph.device_order(d).empty();
    EXPECT_EQ(schedule_size(w, sim.platform()).ranks, ranks) << schedule;
    EXPECT_EQ(used, ranks) << schedule;
  }
  const auto run = [&](const std::string& parallel) {
    return run_pipesim("run " + complete_platform(4) + " " +
                       write_file("six.yaml", chain(6, "100000000") + "schedule: zbv\nparallel: " + parallel + "\n") +
                       " --quiet");
  };
  const CliResult idle = run("{pp: 4}");
  EXPECT_EQ(idle.exit_code, 2);
  EXPECT_NE(idle.err.find("placement: the schedule's stages run on 3 of the 4 pipeline ranks (parallel.pp): too few "
                          "layers for its stages per rank on every rank"),
            std::string::npos)
      << idle.err;
  const CliResult built = run("{pp: 3, gpus: 3}");  // every rank used: refused when it comes to building
  EXPECT_EQ(built.exit_code, 2);
  EXPECT_NE(built.err.find("microbatches: this run needs about"), std::string::npos) << built.err;
}

}  // namespace
}  // namespace pipesim::testing
