// with_timing_of: a search that varies only the layout around the same
// layers reuses one timing, and gets exactly what timing again gives.
#include <gtest/gtest.h>

#include "sim/engine/simulation.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

TEST(ModelCosts, TimingReusedAcrossLayoutsIsTimingAgain) {
  Simulation simulation(std::string(PIPESIM_SOURCE_DIR) + "/platforms/nvswitch-8gpu.xml");
  const std::string w = write_file("timed.yaml",
                                   "model: {preset: gpt2-xl, layers: 4, hidden: 1024, heads: 16, seq_length: 512, "
                                   "microbatch_size: 2, recompute: selective}\n"
                                   "microbatches: 4\nschedule: 1f1b\nparallel: {tp: 2, pp: 4, dp: 1}\n");
  const Workload first = time_model_layers(load_workload(w), simulation.platform());
  for (const std::vector<WorkloadOverride>& layout :
       {std::vector<WorkloadOverride>{{"parallel.pp", "2"}, {"parallel.dp", "2"}, {"parallel.zero", "1"}},
        std::vector<WorkloadOverride>{{"parallel.pp", "1"}, {"parallel.dp", "4"}, {"schedule", "gpipe"}},
        std::vector<WorkloadOverride>{{"microbatches", "16"}, {"schedule", "zb-h1"}}}) {
    const Workload loaded = load_workload(w, layout);
    const Workload again = time_model_layers(loaded, simulation.platform());
    const Workload reused = with_timing_of(loaded, first);
    EXPECT_EQ(reused.reference_speed, again.reference_speed);
    EXPECT_EQ(reused.optimizer.step_seconds_per_parameter, again.optimizer.step_seconds_per_parameter);
    ASSERT_EQ(reused.layers.size(), again.layers.size());
    for (std::size_t l = 0; l < again.layers.size(); ++l) {
      const Layer &a = again.layers[l], &b = reused.layers[l];
      EXPECT_EQ(b.forward.value, a.forward.value) << l;
      EXPECT_EQ(b.forward.flops, a.forward.flops) << l;
      EXPECT_EQ(b.backward.value, a.backward.value) << l;
      EXPECT_EQ(b.backward_input.value, a.backward_input.value) << l;
      EXPECT_EQ(b.backward_weight.value, a.backward_weight.value) << l;
      EXPECT_EQ(b.host_bound.forward, a.host_bound.forward) << l;
      EXPECT_EQ(b.host_bound.backward_input, a.host_bound.backward_input) << l;
      EXPECT_EQ(b.host_bound.backward_weight, a.host_bound.backward_weight) << l;
    }
  }
}

}  // namespace
}  // namespace pipesim
