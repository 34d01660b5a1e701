#include "schedules/memory_saving/operations.hpp"

#include <sstream>

namespace pipesim::memory_saving {

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::ForwardAll:
      return "F_all";
    case OpKind::ForwardCheckpoint:
      return "F_ck";
    case OpKind::ForwardNone:
      return "F_none";
    case OpKind::Backward:
      return "B";
    case OpKind::Offload:
      return "offload";
    case OpKind::Prefetch:
      return "prefetch";
    case OpKind::Free:
      return "free";
  }
  return "?";
}

std::string describe(const std::vector<Operation>& ops) {
  std::ostringstream s;
  for (const Operation& op : ops)
    s << op_kind_name(op.kind) << ' ' << op.layer << " start=" << op.start << " duration=" << op.duration
      << " memory=" << op.memory << '\n';
  return s.str();
}

}  // namespace pipesim::memory_saving
