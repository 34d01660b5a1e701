// The memory a run needs, estimated before anything is built: runs over the
// limit are one error line naming the estimate and the limit.
#include <unistd.h>

#include <gtest/gtest.h>

#include "schedules/registry.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_limit.hpp"
#include "sim/units.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

// 4 layers of 1 ms / 2 ms on 4 devices.
Workload four_layers(int microbatches, const std::string& schedule) {
  Workload w = chain_workload({1e-3, 1e-3, 1e-3, 1e-3}, {2e-3, 2e-3, 2e-3, 2e-3}, {1e6, 1e6, 1e6, 1e6});
  w.schedule = schedule;
  w.microbatches = microbatches;
  return w;
}

std::string generate_error(const Workload& w, double limit, bool export_pattern = false) {
  try {
    generate(w, pattern_platform(4), RunLimits{limit, export_pattern});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MemoryEstimate, DefaultLimitIsThreeQuartersOfTheMachineAtMost16GiB) {
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  EXPECT_EQ(default_memory_limit(), std::min(16.0 * (1ull << 30), 0.75 * physical));
}

// The sizes counted: 1f1b, 1000 micro-batches, 4 stages: 1000 x (4 F/B +
// 3 x 2 transfers) = 14,000 tasks, 53.2 MiB (the measured bytes per task:
// tests/bench/test_measured_memory.cpp). Its pattern, 1000 copies of 8 ops and 6
// transfers, is built only for --export-pattern, and counts only then.
TEST(MemoryEstimate, RefusesRunsOverTheLimit) {
  EXPECT_EQ(generate_error(four_layers(1000, "1f1b"), 1 << 20),
            "chain.yaml: microbatches: this run needs about 53.2 MiB of memory to simulate (1000 micro-batches x 4 "
            "stages); the limit is 1.00 MiB (raise it with --max-memory)");
  EXPECT_EQ(generate_error(four_layers(1000, "1f1b"), 1 << 20, true),
            "chain.yaml: microbatches: this run needs about 59.6 MiB of memory to simulate (1000 micro-batches x 4 "
            "stages); the limit is 1.00 MiB (raise it with --max-memory)");
  EXPECT_EQ(generate_error(four_layers(1000, "1f1b"), 54 << 20), "(no error)");
  EXPECT_NE(generate_error(four_layers(1000, "1f1b"), 54 << 20, true), "(no error)");
  Workload twice = four_layers(1000, "gpipe");
  twice.iterations = 3;  // the graph triples: 42,000 tasks
  EXPECT_EQ(generate_error(twice, 1 << 20),
            "chain.yaml: microbatches: this run needs about 55.6 MiB of memory to simulate (1000 micro-batches x 3 "
            "iterations x 4 stages); the limit is 1.00 MiB (raise it with --max-memory)");
  // Pattern schedules have a task per layer (4 layers, one per device) and
  // always build their pattern: 14 x 1,000,000 tasks and 14 pattern items.
  EXPECT_EQ(generate_error(four_layers(1000000, "1f1b-pattern"), 1 << 30),
            "chain.yaml: microbatches: this run needs about 1.22 GiB of memory to simulate (1000000 micro-batches x 4 "
            "layers); the limit is 1.00 GiB (raise it with --max-memory)");
}

// Ten million micro-batches on 8 stages (3 x 10^8 tasks): refused at once
// with the default limit, not after minutes of building and a std::bad_alloc.
TEST(MemoryEstimate, CommandLineRefusesTenMillionMicrobatches) {
  const std::string workload =
      write_file("ten-million.yaml",
                 "microbatches: 10000000\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, repeat: 8}\n");
  const CliResult r = run_pipesim("run " + complete_platform(8) + " " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "pipesim: error: " + workload +
                ": microbatches: this run needs about 25.2 GiB of memory to simulate (10000000 micro-batches x 8 "
                "stages); the limit is " +
                format_bytes(default_memory_limit()) + " (raise it with --max-memory)\n");
}

}  // namespace
}  // namespace pipesim
