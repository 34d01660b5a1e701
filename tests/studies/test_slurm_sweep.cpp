// scripts/slurm_sweep.sbatch and scripts/slurm_plan.sbatch on a single-node
// Slurm started for the test (scripts/local_slurm.sh): the merged shards
// equal the single run's table, the plan's job steps the local plan.
// Skipped, saying why, where Slurm is not installed or cannot start.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <filesystem>
#include <fstream>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// Stops the local Slurm however the test ends.
struct LocalSlurm {
  std::string dir;
  ~LocalSlurm() { std::system((kRoot + "scripts/local_slurm.sh stop " + dir + " >/dev/null 2>&1").c_str()); }
};

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const std::size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// Why a local Slurm cannot run in DIR/cluster, or "" once it has started.
std::string start_slurm(const std::string& dir, const LocalSlurm& slurm) {
  if (std::system("command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1") != 0)
    return "Slurm is not installed here (Debian slurm-wlm and munge, scripts/setup.sh)";
  const std::string log = dir + "/start.log";
  if (std::system((kRoot + "scripts/local_slurm.sh start " + slurm.dir + " >" + log + " 2>&1").c_str()) != 0)
    return "a local Slurm cannot start here: " + last_line(read_text(log));
  return "";
}

TEST(SlurmSweep, JobArrayShardsMergedEqualTheSingleRun) {
  const std::string dir = temp_path("slurm");
  fs::remove_all(dir);
  fs::create_directories(dir);
  LocalSlurm slurm{dir + "/cluster"};
  if (const std::string why = start_slurm(dir, slurm); !why.empty()) GTEST_SKIP() << why;

  const std::string spec = dir + "/spec.yaml";
  std::ofstream(spec) << "workload: " << kRoot << "workloads/examples/tiny.yaml\n"
                      << "grid:\n  platform: [" << kRoot << "platforms/complete-4.xml, " << kRoot
                      << "platforms/nvswitch-4gpu.xml]\n  microbatches: [2, 4, 8]\n"
                      << "zip:\n  - {schedule: [1f1b, kfkb], schedule.k: ['', 0]}\n";
  const std::string single = dir + "/single";
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + single + " -j 2").exit_code, 0);

  const std::string env = "SLURM_CONF=" + slurm.dir + "/slurm.conf ";
  const std::string common = " --chdir=" + dir + " --export=ALL,PIPESIM=" + PIPESIM_BINARY + " ";
  const std::string out = dir + "/out", job = dir + "/job";
  const std::string submit = env + "sbatch --parsable --array=1-3" + common + kRoot + "scripts/slurm_sweep.sbatch " +
                             spec + " " + out + " >" + job + " 2>&1";
  ASSERT_EQ(std::system(submit.c_str()), 0) << read_text(job);
  std::string id = read_text(job);
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  const std::string merge = env + "timeout 300 sbatch --wait --dependency=afterok:" + id + common + kRoot +
                            "scripts/slurm_sweep.sbatch --merge " + out + " >" + job + ".merge 2>&1";
  ASSERT_EQ(std::system(merge.c_str()), 0) << read_text(job + ".merge");
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(fs::exists(out + "/shard-" + std::to_string(i) + "/results.csv")) << i;
  EXPECT_EQ(read_text(out + "/results.csv"), read_text(single + "/results.csv"));
}

// A plan whose runs are job steps (--launcher 'srun ...', two at once)
// finds what the same plan finds with its runs forked here: the same
// plan.csv, byte for byte.
TEST(SlurmPlan, RunsAsJobStepsGiveTheLocalPlan) {
  const std::string dir = temp_path("slurm-plan");
  fs::remove_all(dir);
  fs::create_directories(dir);
  LocalSlurm slurm{dir + "/cluster"};
  if (const std::string why = start_slurm(dir, slurm); !why.empty()) GTEST_SKIP() << why;
  const std::string workload = dir + "/small.yaml";
  std::ofstream(workload) << "name: small-gpt\n"
                          << "model: {preset: gpt2-xl, layers: 4, hidden: 1024, heads: 16, seq_length: 512, "
                          << "microbatch_size: 2}\nmicrobatches: 4\nschedule: 1f1b\n";
  const std::string args = kRoot + "platforms/nvswitch-4gpu.xml " + workload + " --top 3 --objective cost -o ";
  const CliResult local = run_pipesim("plan " + args + dir + "/local -j 2");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const std::string env = "SLURM_CONF=" + slurm.dir + "/slurm.conf ";
  const std::string job = dir + "/job.out";
  const std::string submit = env + "timeout 300 sbatch --wait --ntasks=2 --output=" + job + " --chdir=" + dir +
                             " --export=ALL,PIPESIM=" + PIPESIM_BINARY + " " + kRoot + "scripts/slurm_plan.sbatch " +
                             args + dir + "/steps >" + dir + "/submit.log 2>&1";
  ASSERT_EQ(std::system(submit.c_str()), 0) << read_text(dir + "/submit.log") << read_text(job);
  EXPECT_EQ(read_text(dir + "/steps/plan.csv"), read_text(dir + "/local/plan.csv"));
  EXPECT_NE(read_text(job).find("winner        tp 1 pp 1 dp 1 on 1 GPU"), std::string::npos) << read_text(job);
}

}  // namespace
}  // namespace pipesim
