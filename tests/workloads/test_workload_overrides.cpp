// --set KEY=VALUE: overrides applied to a workload's YAML before it is read.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <stdexcept>

#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kTiny = kRoot + "workloads/examples/tiny.yaml";

std::string load_error(const std::vector<WorkloadOverride>& overrides) {
  try {
    load_workload(kTiny, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadOverrides, SetTopLevelFieldsScheduleParametersAndStages) {
  const Workload w = load_workload(kTiny, {{"microbatches", "32"},
                                           {"schedule", "kfkb"},
                                           {"schedule.k", "2"},
                                           {"placement.stages", "2"},
                                           {"iterations", "3"}});
  EXPECT_EQ(w.microbatches, 32);
  EXPECT_EQ(w.schedule, "kfkb");
  EXPECT_EQ(w.schedule_params.at("k"), "2");
  EXPECT_EQ(w.placement.stages, 2);
  EXPECT_TRUE(w.placement.automatic);
  EXPECT_EQ(w.iterations, 3);
  EXPECT_EQ(w.layers.size(), 4u);  // the rest as in the file
}

TEST(WorkloadOverrides, LaterOverrideWinsAndEmptyValueRemoves) {
  const Workload w = load_workload(kTiny, {{"microbatches", "4"},
                                           {"microbatches", "6"},
                                           {"name", "renamed"},
                                           {"placement.stages", "2"},
                                           {"placement", ""}});
  EXPECT_EQ(w.microbatches, 6);
  EXPECT_EQ(w.name, "renamed");
  EXPECT_EQ(w.placement.stages, 0);  // back to the default: one stage per device
}

// A file parsed once and loaded with many lists of overrides (pipesim plan)
// gives what load_workload gives, errors included.
TEST(WorkloadOverrides, TheParsedFileLoadsAsLoadWorkload) {
  const WorkloadLoader load = workload_loader(kTiny);
  const std::vector<WorkloadOverride> kfkb = {{"schedule", "kfkb"}, {"schedule.k", "2"}, {"microbatches", "6"}};
  for (const auto& overrides : {std::vector<WorkloadOverride>{}, kfkb}) {
    const Workload once = load(overrides), again = load_workload(kTiny, overrides);
    EXPECT_EQ(once.schedule, again.schedule);
    EXPECT_EQ(once.schedule_params, again.schedule_params);
    EXPECT_EQ(once.microbatches, again.microbatches);
    EXPECT_EQ(once.layers.size(), again.layers.size());
  }
  EXPECT_EQ(load(kfkb).microbatches, 6);  // each load starts from the file, not the last overrides
  EXPECT_EQ(load({}).microbatches, load_workload(kTiny).microbatches);
  try {
    load({{"microbatches", "abc"}});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), load_error({{"microbatches", "abc"}}));
  }
}

TEST(WorkloadOverrides, ErrorsNameTheFieldWithoutALineOfTheFile) {
  EXPECT_EQ(load_error({{"microbatches", "abc"}}), kTiny + ": microbatches: expected an integer >= 1, got 'abc'");
  EXPECT_EQ(load_error({{"nosuch", "1"}}),
            kTiny +
                ": nosuch: unknown key 'nosuch'; expected one of: name, microbatches, microbatch_size, "
                "iterations, input, reference_speed, layers, model, schedule, placement, memory_saving, optimizer, "
                "memory, parallel");
  EXPECT_EQ(load_error({{"placement.stages", "99"}}),
            kTiny + ": placement.stages: expected at most one stage per layer (4 layers), got 99");
  EXPECT_EQ(load_error({{"microbatches.x", "1"}}),
            kTiny + ": microbatches: cannot set 'microbatches.x': expected a map here, got '8'");
}

// A value in YAML's flow form sets a list or a map; its errors name the
// field without a line (the value is not in the file).
TEST(WorkloadOverrides, AFlowValueSetsAListOrAMap) {
  const Workload list = load_workload(kTiny, {{"memory_saving", "[{policy: remat, limit: fit}, {policy: none}]"}});
  ASSERT_EQ(list.memory_saving_stages.size(), 2u);
  EXPECT_EQ(list.memory_saving_stages[0].policy, "remat");
  EXPECT_TRUE(list.memory_saving_stages[0].fit);
  EXPECT_EQ(list.memory_saving_stages[1].policy, "none");
  const Workload map = load_workload(kTiny, {{"memory_saving", "{policy: remat, limit: 2GiB}"}});
  EXPECT_EQ(map.memory_saving.policy, "remat");
  EXPECT_EQ(map.memory_saving.limit, 2.0 * (1 << 30));
  EXPECT_EQ(load_error({{"memory_saving", "[{policy: bogus}]"}}),
            kTiny + ": memory_saving[0].policy: expected none, remat, offload or both, got 'bogus'");
  EXPECT_EQ(load_error({{"memory_saving", "[{"}}),
            kTiny + ": memory_saving: cannot read '[{' as a YAML list or map: end of map flow not found");
}

TEST(WorkloadOverrides, MalformedOverridesAreRefused) {
  for (const char* bad : {"microbatches", "=3", "a..b=1", ".a=1", "a.=1"})
    EXPECT_THROW(parse_workload_override(bad), std::invalid_argument) << bad;
  const WorkloadOverride o = parse_workload_override("schedule.k=a=b");
  EXPECT_EQ(o.key, "schedule.k");
  EXPECT_EQ(o.value, "a=b");
}

TEST(WorkloadOverrides, RunWithSetEqualsRunOfTheEditedFile) {
  const std::string edited = write_file("tiny32.yaml",
                                        "microbatches: 32\nschedule: gpipe\nlayers:\n"
                                        "  - {name: layer, forward: 1ms, backward: 2ms, "
                                        "activation: 16MiB, weights: 64MiB, repeat: 4}\n"
                                        "placement: {stages: 2}\nname: tiny\n");
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const CliResult a = run_pipesim("run " + platform + " " + kTiny +
                                  " --set microbatches=32 --set schedule=gpipe --set placement.stages=2");
  const CliResult b = run_pipesim("run " + platform + " " + edited);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("micro-batches         32"), std::string::npos) << a.out;
}

TEST(WorkloadOverrides, CliErrorsAreOneLineExitTwo) {
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const std::string json = temp_path("set_error.json");
  std::remove(json.c_str());
  CliResult r = run_pipesim("run " + platform + " " + kTiny + " --set nosuch=1 --json " + json);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: " + kTiny +
                       ": nosuch: unknown key 'nosuch'; expected one of: name, microbatches, microbatch_size, "
                       "iterations, input, reference_speed, layers, model, schedule, placement, memory_saving, "
                       "optimizer, memory, parallel\n");
  EXPECT_FALSE(std::ifstream(json).good());
  r = run_pipesim("run " + platform + " " + kTiny + " --set microbatches");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: --set: expected KEY=VALUE, got 'microbatches'; see 'pipesim run --help'\n");
  r = run_pipesim("validate " + platform + " " + kTiny + " x.yaml --set schedule.k=");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("pipesim: error: "), 0u) << r.err;
}

}  // namespace
}  // namespace pipesim
