#include "schedules/memory_saving/chain_internal.hpp"

#include <cmath>
#include <sstream>

namespace pipesim::memory_saving {

namespace {

bool usable(double x) { return std::isfinite(x) && x >= 0; }

}  // namespace

std::string chain_error(const Chain& chain) {
  if (chain.layers.empty()) return "layers: at least one layer expected";
  if (!usable(chain.input_size)) return "input_size: a finite number >= 0 expected";
  if (!usable(chain.input_gradient_size)) return "input_gradient_size: a finite number >= 0 expected";
  for (std::size_t i = 0; i < chain.layers.size(); ++i) {
    const ChainLayer& l = chain.layers[i];
    const std::pair<const char*, double> fields[] = {{"forward_time", l.forward_time},
                                                     {"backward_time", l.backward_time},
                                                     {"output_size", l.output_size},
                                                     {"tape_size", l.tape_size},
                                                     {"gradient_size", l.gradient_size},
                                                     {"forward_overhead", l.forward_overhead},
                                                     {"backward_overhead", l.backward_overhead}};
    for (const auto& [name, value] : fields)
      if (!usable(value)) return "layers[" + std::to_string(i) + "]." + name + ": a finite number >= 0 expected";
    if (l.tape_size < l.output_size) {
      std::ostringstream s;
      s << "layers[" << i << "].tape_size: must be >= output_size (" << l.output_size << ")";
      return s.str();
    }
  }
  return "";
}

Chain homogeneous_chain(int length, const ChainLayer& layer, double input_size) {
  Chain chain;
  chain.input_size = input_size;
  chain.input_gradient_size = layer.gradient_size;
  chain.layers.assign(static_cast<std::size_t>(length), layer);
  return chain;
}

}  // namespace pipesim::memory_saving
