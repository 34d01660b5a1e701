#include "patterns/pattern.hpp"

namespace pipesim {

std::string_view to_string(WeightPolicy policy) {
  switch (policy) {
    case WeightPolicy::Flush: return "flush";
    case WeightPolicy::TwoBW: return "2bw";
    case WeightPolicy::Stashing: return "stashing";
  }
  return "?";
}

std::string_view to_string(LinkModel model) { return model == LinkModel::Pair ? "pair" : "platform"; }

int Pattern::find(int task_number, int copy) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (this->task_number(ops[i]) == task_number && ops[i].copy == copy) return static_cast<int>(i);
  return -1;
}

}  // namespace pipesim
