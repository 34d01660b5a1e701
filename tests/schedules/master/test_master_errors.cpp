// Bad inputs to schedule `master`: one clear line naming the file and the
// field, from the registry; exit status 2 and nothing written from the CLI.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "schedules/master/master_scheduler_internal.hpp"
#include "schedules/registry.hpp"
#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

Platform platform(int n, bool routed = true) { return testing::table_platform(n, {1e12, 16e9, 0, 1e9, routed}); }

// 4 one-layer stages, 8 micro-batches.
Workload workload(std::map<std::string, std::string> params) {
  Workload w;
  w.file = "w.yaml";
  w.schedule = "master";
  w.schedule_params = std::move(params);
  w.microbatches = 8;
  for (int l = 0; l < 4; ++l) w.layers.push_back({"l" + std::to_string(l), {1, false}, {1, false}, 1e6, 1e6});
  return w;
}

std::string error(const Workload& w, const Platform& p) {
  try {
    generate(w, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

struct Bad {
  const char* name;
  Workload w;
  int devices;
  std::string message;
};

std::vector<Bad> bad_inputs() {
  Workload iterations = workload({{"scheme", "ddp"}});
  iterations.iterations = 2;
  Workload explicit_placement = workload({{"scheme", "gpipe"}});
  explicit_placement.placement.automatic = false;
  explicit_placement.placement.stage_layers = {{0, 1}, {2, 3}};
  explicit_placement.placement.stage_hosts = {"gpu0", "gpu1"};
  Workload too_many_stages = workload({{"scheme", "gpipe"}});
  too_many_stages.placement.stages = 5;
  Workload fsdp_deep = workload({{"scheme", "fsdp"}});
  fsdp_deep.microbatches = 2;
  return {
      {"no_scheme", workload({}), 8, "w.yaml: schedule.scheme: missing: expected one of ddp, fsdp, gpipe, lpp, fslpp"},
      {"unknown_scheme", workload({{"scheme", "zero3"}}), 8,
       "w.yaml: schedule.scheme: expected one of ddp, fsdp, gpipe, lpp, fslpp, got 'zero3'"},
      {"unknown_priority", workload({{"scheme", "ddp"}, {"priority", "lifo"}}), 8,
       "w.yaml: schedule.priority: expected one of 1f1b, depth-first, breadth-first, got 'lifo'"},
      {"unknown_param", workload({{"scheme", "ddp"}, {"groups", "2"}}), 8,
       "w.yaml: schedule.groups: unknown parameter 'groups' for schedule 'master' (expected: G, R, prefetch, "
       "priority, refetch, scheme, workers)"},
      {"G_not_a_number", workload({{"scheme", "lpp"}, {"G", "two"}, {"R", "2"}}), 8,
       "w.yaml: schedule.G: expected an integer >= 1, got 'two'"},
      {"G_zero", workload({{"scheme", "lpp"}, {"G", "0"}, {"R", "2"}}), 8,
       "w.yaml: schedule.G: expected an integer >= 1, got '0'"},
      {"lpp_without_R", workload({{"scheme", "lpp"}, {"G", "2"}}), 8,
       "w.yaml: schedule.R: lpp needs R (workers per group), an integer >= 1"},
      {"R_does_not_divide_S", workload({{"scheme", "fslpp"}, {"G", "2"}, {"R", "3"}}), 8,
       "w.yaml: schedule.R: fslpp needs R to divide S (each worker of a group takes S/R stages): R = 3, S = 4"},
      {"W_is_not_GR", workload({{"scheme", "lpp"}, {"G", "2"}, {"R", "2"}, {"workers", "8"}}), 8,
       "w.yaml: schedule.workers: lpp needs W = G R = 2 x 2 = 4 workers, got workers = 8"},
      {"G_above_B", workload({{"scheme", "lpp"}, {"G", "16"}, {"R", "1"}}), 16,
       "w.yaml: schedule.G: lpp with G = 16 groups but only B = 8 micro-batches: groups 8..15 would have nothing "
       "to do"},
      {"G_for_ddp", workload({{"scheme", "ddp"}, {"G", "2"}}), 8,
       "w.yaml: schedule.G: only lpp and fslpp have groups; ddp takes no G"},
      {"ddp_workers", workload({{"scheme", "ddp"}, {"workers", "4"}}), 8,
       "w.yaml: schedule.workers: ddp runs one micro-batch per worker, so W = B = 8, got workers = 4"},
      {"gpipe_workers", workload({{"scheme", "gpipe"}, {"workers", "8"}}), 8,
       "w.yaml: schedule.workers: gpipe runs one stage per worker, so W = S = 4, got workers = 8"},
      {"fsdp_deeper_than_wide", fsdp_deep, 8,
       "w.yaml: schedule.scheme: fsdp keeps stage s's weights on worker s, so it needs S <= W = B; got S = 4, B = 2"},
      {"more_workers_than_hosts", workload({{"scheme", "lpp"}, {"G", "4"}, {"R", "4"}}), 8,
       "w.yaml: schedule: lpp needs W = 16 workers (S = 4, B = 8, G = 4, R = 4) but platform plat.xml has 8 hosts"},
      {"ddp_more_workers_than_hosts", workload({{"scheme", "ddp"}}), 4,
       "w.yaml: schedule: ddp needs W = 8 workers (S = 4, B = 8) but platform plat.xml has 4 hosts"},
      {"negative_prefetch", workload({{"scheme", "fsdp"}, {"prefetch", "-1"}}), 8,
       "w.yaml: schedule.prefetch: expected an integer >= 0, got '-1'"},
      {"refetch_not_a_boolean", workload({{"scheme", "fsdp"}, {"refetch", "sometimes"}}), 8,
       "w.yaml: schedule.refetch: expected true or false, got 'sometimes'"},
      {"iterations", iterations, 8,
       "w.yaml: iterations: schedule 'master' simulates one round of seed 003's master scheduler (every "
       "micro-batch forward and backward once); set iterations: 1, got 2"},
      {"explicit_placement", explicit_placement, 8,
       "w.yaml: placement: schedule 'master' places work with its maps; give placement: auto (one stage per layer) "
       "or {stages: N}, not a list of hosts"},
      {"more_stages_than_layers", too_many_stages, 8, "w.yaml: placement.stages: 5 stages but only 4 layers"},
  };
}

void PrintTo(const Bad& b, std::ostream* os) { *os << b.name; }

class MasterBadInput : public ::testing::TestWithParam<Bad> {};

TEST_P(MasterBadInput, OneClearLine) {
  const Bad& b = GetParam();
  EXPECT_EQ(error(b.w, platform(b.devices)), b.message);
}

INSTANTIATE_TEST_SUITE_P(Master, MasterBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const ::testing::TestParamInfo<Bad>& info) { return std::string(info.param.name); });

TEST(MasterErrors, Unrouted) {
  EXPECT_EQ(error(workload({{"scheme", "gpipe"}}), platform(4, false)),
            "w.yaml: schedule: gpipe moves data from gpu0 to gpu1 but the platform has no route between them");
  // DDP moves nothing, so it needs no route.
  EXPECT_EQ(error(workload({{"scheme", "ddp"}}), platform(8, false)), "(no error)");
}

TEST(MasterErrors, SpecChecksWithoutAWorkload) {
  const MasterSpec lpp{MasterScheme::LPP, MasterPriority::OneFOneB, 2, 2};
  EXPECT_THROW(master_shape(lpp, 0, 4), MasterSpecError);
  EXPECT_THROW(master_shape(lpp, 4, 0), MasterSpecError);
  try {
    build_master_graph(lpp, uniform_master_stages(4, 1, 1, 0, 0), 4, 3);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "lpp needs 4 workers but the platform has 3 devices");
  }
}

// Through the command line: exit 2, one line on stderr, no output file.
TEST(MasterErrors, CliExitTwoAndNothingWritten) {
  using namespace testing;
  const std::string plat = complete_platform(4);
  const std::string base =
      "microbatches: 8\nlayers:\n  - {forward: 1ms, backward: 1ms, activation: 1MiB, weights: 1MiB, repeat: 4}\n";
  const std::string svg = temp_path("master-bad.svg");
  std::filesystem::remove(svg);
  struct Case {
    std::string yaml, extra, fragment;
  };
  const std::vector<Case> cases = {
      {base + "schedule: {name: master, scheme: lpp, G: 2, R: 3}\n", "", "schedule.R: lpp needs R to divide S"},
      {base + "schedule: {name: master, scheme: ddp}\n", "",
       "schedule: ddp needs W = 8 workers (S = 4, B = 8) but platform"},
      {base + "schedule: {name: master, scheme: lpp, G: 2, R: 2}\n", "--schedule-param scheme=ddp",
       "schedule.G: only lpp and fslpp have groups; ddp takes no G"},
      {base + "schedule: {name: master, scheme: lpp, G: 2, R: 2}\n", "--schedule-param workers=3",
       "schedule.workers: lpp needs W = G R = 2 x 2 = 4 workers, got workers = 3"},
  };
  for (const Case& c : cases) {
    const std::string w = write_file("master-bad.yaml", c.yaml);
    const CliResult r = run_pipesim("run " + plat + " " + w + " " + c.extra + " --diagram " + svg);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("pipesim: error: " + w + ": " + c.fragment), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(svg));
  }
  const std::string w = write_file("master-ok.yaml", cases[0].yaml);
  const CliResult usage = run_pipesim("run " + plat + " " + w + " --schedule-param R");
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.err, "pipesim: error: --schedule-param needs KEY=VALUE, got 'R'; see 'pipesim run --help'\n");
}

}  // namespace
}  // namespace pipesim
