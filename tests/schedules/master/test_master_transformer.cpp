// Real costs: the shipped transformer-like workload
// (workloads/examples/transformer-8.yaml) on platforms/nvswitch-8gpu.xml
// under every scheme. The numbers are docs/master-scheduler.md's comparison
// table (scripts/master_compare.py prints it); one scheme per process.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "analysis/memory.hpp"
#include "analysis/worker_metrics.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

struct Row {
  const char* name;
  std::vector<std::pair<std::string, std::string>> params;  // "" removes
  double latency_ms;
  double rho;
  double peak_gib;        // largest peak over the workers
  double activation_mib;  // activations moved (gradients: the same)
  double weights_gib;     // weights moved
};

void PrintTo(const Row& r, std::ostream* os) { *os << r.name; }

const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"ddp", {{"scheme", "ddp"}, {"G", ""}, {"R", ""}}, 565.97, 1.0, 25.28, 0, 0},
      {"fsdp", {{"scheme", "fsdp"}, {"G", ""}, {"R", ""}}, 637.06, 0.8884, 14.78, 0, 86.68},
      {"gpipe", {{"scheme", "gpipe"}, {"G", ""}, {"R", ""}}, 1161.32, 0.4874, 4.30, 896, 0},
      {"lpp", {}, 913.21, 0.6198, 7.31, 896, 0},
      {"fslpp", {{"scheme", "fslpp"}}, 940.40, 0.6018, 14.08, 896, 49.53},
      {"fsdp_refetch",
       {{"scheme", "fsdp"}, {"G", ""}, {"R", ""}, {"refetch", "true"}},
       643.39,
       0.8797,
       7.28,
       0,
       173.37},
      {"lpp_breadth_first", {{"priority", "breadth-first"}}, 821.58, 0.6889, 7.31, 896, 0},
      {"lpp_G4_R2", {{"G", "4"}, {"R", "2"}}, 651.72, 0.8684, 13.31, 896, 0},
  };
  return r;
}

class MasterTransformer : public ::testing::TestWithParam<Row> {};

TEST_P(MasterTransformer, ComparisonTableOfTheDocs) {
  const Row& row = GetParam();
  Workload w = load_workload(kRoot + "workloads/examples/transformer-8.yaml");
  for (const auto& [k, v] : row.params) {
    if (v.empty())
      w.schedule_params.erase(k);
    else
      w.schedule_params[k] = v;
  }
  Simulation sim(kRoot + "platforms/nvswitch-8gpu.xml");
  const GeneratedSchedule s = generate(w, sim.platform());
  const Timeline tl = sim.run(s.graph);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const WorkerReport r = compute_worker_metrics(s.graph, tl, sim.platform());
  EXPECT_EQ(r.workers, 8);
  EXPECT_EQ(r.stages, 8);
  EXPECT_EQ(r.microbatches, 8);
  EXPECT_NEAR(r.latency * 1e3, row.latency_ms, 0.005);
  EXPECT_NEAR(r.rho, row.rho, 0.00005);
  EXPECT_LE(r.rho, r.rho_bound);
  double peak = 0;
  for (const WorkerMetrics& m : r.per_worker) {
    peak = std::max(peak, m.memory.total);
    EXPECT_LE(m.memory.total, sim.platform().devices[m.device].memory);  // fits in 80 GiB
  }
  EXPECT_NEAR(peak / kGiB, row.peak_gib, 0.005);
  EXPECT_NEAR(r.activation_bytes_moved / kMiB, row.activation_mib, 1e-9);
  EXPECT_NEAR(r.gradient_bytes_moved / kMiB, row.activation_mib, 1e-9);
  EXPECT_NEAR(r.weight_bytes_moved / kGiB, row.weights_gib, 0.005);
  // Work is the same under every scheme: S B stage-jobs of the same flops.
  double flops = 0;
  for (const Task& t : s.graph.tasks())
    if (!is_transfer(t.kind)) flops += t.amount;
  EXPECT_NEAR(r.work, flops / 156e12, 1e-9);
  // DDP moves nothing: its latency is one batch's compute, S stages F + B.
  if (std::string(row.name) == "ddp") {
    EXPECT_NEAR(r.latency, flops / 8 / 156e12, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Master, MasterTransformer, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pipesim
