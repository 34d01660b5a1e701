#include "patterns/pattern.hpp"

namespace pipesim {

std::string_view to_string(WeightPolicy policy) {
  switch (policy) {
    case WeightPolicy::Flush:
      return "flush";
    case WeightPolicy::TwoBW:
      return "2bw";
    case WeightPolicy::Stashing:
      return "stashing";
  }
  return "?";
}

std::string_view to_string(LinkModel model) { return model == LinkModel::Pair ? "pair" : "platform"; }

std::string_view to_string(BufferPolicy policy) { return policy == BufferPolicy::Seed000 ? "seed000" : "lifetime"; }

bool parse_buffer_policy(const std::string& text, BufferPolicy& policy) {
  if (text == "lifetime")
    policy = BufferPolicy::Lifetime;
  else if (text == "seed000")
    policy = BufferPolicy::Seed000;
  else
    return false;
  return true;
}

int Pattern::find(int task_number, int copy) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (this->task_number(ops[i]) == task_number && ops[i].copy == copy) return static_cast<int>(i);
  return -1;
}

}  // namespace pipesim
