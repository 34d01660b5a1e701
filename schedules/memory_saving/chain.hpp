// The chain of seed 002 (Beaumont, Eyraud-Dubois, Shilova, NeurIPS 2021,
// Table 1): L layers on one GPU, each with forward/backward times and the
// sizes of what its operations keep. docs/memory-saving.md has the model.
#pragma once

#include <string>
#include <vector>

namespace pipesim::memory_saving {

struct ChainLayer {
  double forward_time = 0;       // u_f
  double backward_time = 0;      // u_b
  double output_size = 0;        // a^i: what F_ck / F_∅ produce
  double tape_size = 0;          // ā^i: what F_all keeps (contains a^i, so >= output_size)
  double gradient_size = 0;      // δ^i: gradient of the output
  double forward_overhead = 0;   // o_f: transient memory of the forward
  double backward_overhead = 0;  // o_b: transient memory of the backward
};

struct Chain {
  double input_size = 0;           // a^0: always on the GPU, never offloaded
  double input_gradient_size = 0;  // δ^0: produced by the last backward
  std::vector<ChainLayer> layers;  // layer i of the paper is layers[i - 1]

  int length() const { return static_cast<int>(layers.size()); }
  // Paper indexing (0..L): a^0 is the input, δ^0 the input gradient.
  double a(int i) const { return i == 0 ? input_size : layers[i - 1].output_size; }
  double abar(int i) const { return layers[i - 1].tape_size; }
  double delta(int i) const { return i == 0 ? input_gradient_size : layers[i - 1].gradient_size; }
};

// Empty string when the chain is usable, else "FIELD: WHAT" (e.g.
// "layers[2].tape_size: must be >= output_size (3)").
std::string chain_error(const Chain& chain);

}  // namespace pipesim::memory_saving
