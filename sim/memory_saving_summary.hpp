// What seed 002's memory saving did to each pipeline stage (the workload's
// memory_saving option): the program's time and memory per micro-batch
// against keeping everything. Filled by the generator, read by the reports.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pipesim {

struct StageMemorySaving {
  int stage = 0;
  int device = 0;
  int first_layer = 0, last_layer = -1;  // the layers its program runs (the graph's)
  std::string policy;                    // remat or both
  double limit = 0;                      // bytes per micro-batch given to the program
  int in_flight = 0;                     // micro-batches the stage holds at most
  double baseline_seconds = 0;           // forward + backward of one micro-batch, nothing saved
  double seconds = 0;                    // the program's makespan for one micro-batch
  double baseline_bytes = 0;             // peak per micro-batch keeping every activation
  double bytes = 0;                      // the program's peak per micro-batch
  int recomputed = 0;                    // forwards run again, per micro-batch
  int offloaded = 0;                     // offloads per micro-batch
};

// A valid input that no run can satisfy (a memory limit below what any
// sequence needs): "pipesim: infeasible: WHAT" on stderr and exit code 1.
class InfeasibleRun : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pipesim
