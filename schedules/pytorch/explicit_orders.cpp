#include "schedules/pytorch/explicit_orders.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "schedules/stages/stage_plan.hpp"
#include "schedules/stages/stage_split.hpp"
#include "sim/input_error.hpp"
#include "sim/input_file.hpp"

namespace pipesim {
namespace {

// Large enough for any real schedule, small enough that tables stay small.
constexpr int kMaxIndex = 1'000'000;
constexpr TaskId kNone = std::numeric_limits<TaskId>::max();

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A cell of PyTorch's _Action.from_str: (\d+)(ACTION)(\d*); compute and
// communication actions are read.
struct Cell {
  bool comm = false;
  OrderedOp op;       // compute
  CommOp message;     // comm
  bool pair = false;  // (aFm;bBn)OVERLAP_F_B: op is the F, second the B (or I)
  OrderedOp second;
};

Cell parse_single(std::string_view cell, const std::string& file, const std::string& where, int column);

// DualPipeV's (aFm;bBn)OVERLAP_F_B: a forward and a backward run at once.
Cell parse_pair(std::string_view cell, const std::string& file, const std::string& where, int column) {
  const std::string got = ", got '" + std::string(cell) + "'";
  const std::string_view suffix = ")OVERLAP_F_B";
  const std::size_t semicolon = cell.find(';');
  if (cell.front() != '(' || cell.size() <= suffix.size() || cell.substr(cell.size() - suffix.size()) != suffix ||
      semicolon == std::string_view::npos)
    throw InputError(file, where,
                     "expected an overlapped pair (aFm;bBn)OVERLAP_F_B such as (0F3;7B1)OVERLAP_F_B" + got);
  const std::string_view first = trim(cell.substr(1, semicolon - 1)),
                         second = trim(cell.substr(semicolon + 1, cell.size() - suffix.size() - semicolon - 1));
  Cell out;
  out.pair = true;
  const Cell f = parse_single(first, file, where, column), b = parse_single(second, file, where, column);
  if (f.comm || b.comm || f.op.kind != TaskKind::Forward ||
      (b.op.kind != TaskKind::Backward && b.op.kind != TaskKind::BackwardInput))
    throw InputError(file, where,
                     "an overlapped pair (aFm;bBn)OVERLAP_F_B holds a forward, then a backward (B or I)" + got);
  out.op = f.op;
  out.op.overlaps_next = true;
  out.second = b.op;
  return out;
}

Cell parse_cell(std::string_view cell, const std::string& file, std::size_t row, int column) {
  const std::string where =
      "line " + std::to_string(row + 1) + " (rank " + std::to_string(row) + "), column " + std::to_string(column);
  if (!cell.empty() && cell.front() == '(') return parse_pair(cell, file, where, column);
  return parse_single(cell, file, where, column);
}

Cell parse_single(std::string_view cell, const std::string& file, const std::string& where, int column) {
  const std::string got = ", got '" + std::string(cell) + "'";
  std::size_t i = 0;
  while (i < cell.size() && is_digit(cell[i])) ++i;
  std::size_t j = i;
  while (j < cell.size() && ((cell[j] >= 'A' && cell[j] <= 'Z') || cell[j] == '_')) ++j;
  std::size_t k = j;
  while (k < cell.size() && is_digit(cell[k])) ++k;
  const std::string_view action = cell.substr(i, j - i);
  const char* expected =
      "expected an op <stage><F|B|I|W><micro-batch> such as 2F0, 1I3, 0W1 or 3B2, an overlapped pair "
      "(aFm;bBn)OVERLAP_F_B (or SEND_F, RECV_F, SEND_B, RECV_B in the comms format)";
  if (i == 0 || action.empty() || k != cell.size()) throw InputError(file, where, expected + got);
  const bool comm = action == "SEND_F" || action == "RECV_F" || action == "SEND_B" || action == "RECV_B";
  if (action == "UNSHARD" || action == "RESHARD" || action == "REDUCE_GRAD")
    throw InputError(file, where, "sharding actions (UNSHARD, RESHARD, REDUCE_GRAD) are not supported" + got);
  if (!comm && (action.size() != 1 || std::string_view("FBIW").find(action[0]) == std::string_view::npos))
    throw InputError(file, where, expected + got);
  if (k == j) throw InputError(file, where, "expected a micro-batch after '" + std::string(action) + "'" + got);
  Cell out;
  out.comm = comm;
  int stage = 0, microbatch = 0;
  for (auto [text, dest] : {std::pair{cell.substr(0, i), &stage}, std::pair{cell.substr(j), &microbatch}}) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || v > kMaxIndex)
      throw InputError(file, where, "stage and micro-batch must be at most " + std::to_string(kMaxIndex) + got);
    *dest = static_cast<int>(v);
  }
  if (comm) {
    out.message = {std::string(action), stage, microbatch, column, 0};
    return out;
  }
  out.op.column = column;
  out.op.stage = stage;
  out.op.microbatch = microbatch;
  out.op.kind = action[0] == 'F'   ? TaskKind::Forward
                : action[0] == 'B' ? TaskKind::Backward
                : action[0] == 'I' ? TaskKind::BackwardInput
                                   : TaskKind::BackwardWeight;
  return out;
}

std::string device_name(const Platform& platform, int d) { return platform.devices.at(d).name; }

}  // namespace

std::string cell_name(const OrderedOp& op) {
  const char letter = op.kind == TaskKind::Forward         ? 'F'
                      : op.kind == TaskKind::Backward      ? 'B'
                      : op.kind == TaskKind::BackwardInput ? 'I'
                                                           : 'W';
  return std::to_string(op.stage) + letter + std::to_string(op.microbatch);
}

ExplicitOrders parse_orders_csv(const std::string& text, const std::string& file) {
  ExplicitOrders orders;
  orders.file = file;
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(std::string_view(text).substr(at, end - at));
    at = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();  // trailing newlines
  std::size_t ops = 0;
  for (std::size_t row = 0; row < lines.size(); ++row) {
    std::vector<OrderedOp>& rank = orders.ranks.emplace_back();
    std::vector<CommOp>& comms = orders.comms.emplace_back();
    int column = 0;
    for (std::size_t at = 0; at <= lines[row].size(); ++column) {
      std::size_t end = lines[row].find(',', at);
      if (end == std::string_view::npos) end = lines[row].size();
      const std::string_view cell = trim(lines[row].substr(at, end - at));
      at = end + 1;
      if (cell.empty()) continue;  // idle step
      Cell parsed = parse_cell(cell, file, row, column + 1);
      if (parsed.comm) {
        parsed.message.after = static_cast<int>(rank.size());
        comms.push_back(parsed.message);
        continue;
      }
      rank.push_back(parsed.op);
      orders.stages = std::max(orders.stages, rank.back().stage + 1);
      ++ops;
      if (parsed.pair) {
        rank.push_back(parsed.second);
        orders.stages = std::max(orders.stages, rank.back().stage + 1);
      }
    }
  }
  if (ops == 0) throw InputError(file, "rows", "no ops: expected one row per rank with cells such as 0F0, 0B0");
  return orders;
}

ExplicitOrders read_orders_csv(const std::string& path) {
  return parse_orders_csv(read_input_file(path, "a CSV file"), path);
}

namespace {

// Rank r is device r: the first row beyond the devices is at fault.
void check_rank_count(const ExplicitOrders& orders, const Platform& platform) {
  const std::size_t devices = static_cast<std::size_t>(platform.size());
  if (orders.ranks.size() > devices)
    throw InputError(orders.file, "line " + std::to_string(devices + 1) + " (rank " + std::to_string(devices) + ")",
                     std::to_string(orders.ranks.size()) + " rows (ranks), but the platform has " +
                         std::to_string(devices) + " devices");
}

}  // namespace

std::vector<std::pair<int, int>> orders_stage_layers(const ExplicitOrders& orders, const Workload& w,
                                                     const Platform& platform) {
  const int S = orders.stages, L = static_cast<int>(w.layers.size());
  check_rank_count(orders, platform);
  const std::vector<int> rank = orders.stage_ranks();
  const Placement& pl = w.placement;
  std::vector<std::pair<int, int>> layers;
  if (!pl.automatic) {
    if (pl.stage_layers.size() != static_cast<std::size_t>(S))
      throw InputError(w.file, "placement",
                       "lists " + std::to_string(pl.stage_layers.size()) + " stages, but " + orders.file + " has " +
                           std::to_string(S) + " (stages 0.." + std::to_string(S - 1) + ")");
    for (int s = 0; s < S; ++s)
      if (rank[s] >= 0 && pl.stage_hosts.at(s) != device_name(platform, rank[s]))
        throw InputError(w.file, "placement[" + std::to_string(s) + "].host",
                         "stage " + std::to_string(s) + " runs on rank " + std::to_string(rank[s]) + " (" +
                             device_name(platform, rank[s]) + ") in " + orders.file + ", got '" + pl.stage_hosts[s] +
                             "'");
    layers = pl.stage_layers;
  } else {
    if (pl.stages != 0 && pl.stages != S)
      throw InputError(w.file, pl.layer_counts.empty() ? "placement.stages" : "placement.layers",
                       "expected " + std::to_string(S) + ", the number of stages in " + orders.file + ", got " +
                           std::to_string(pl.stages));
    if (S > L)
      throw InputError(orders.file, "stages",
                       std::to_string(S) + " stages, but the workload has only " + std::to_string(L) +
                           " layers (at most one stage per layer)");
    layers = automatic_stage_layers(w, platform, rank, PartitionRule::Even);
  }
  for (int s = 0; s + 1 < S; ++s) {
    if (rank[s] < 0 || rank[s + 1] < 0 || rank[s] == rank[s + 1]) continue;
    for (const Path* path : {&platform.path(rank[s], rank[s + 1]), &platform.path(rank[s + 1], rank[s])})
      if (!path->exists || !(path->bandwidth > 0))
        throw InputError(orders.file, "stages",
                         "stages " + std::to_string(s) + " and " + std::to_string(s + 1) + " run on " +
                             device_name(platform, rank[s]) + " and " + device_name(platform, rank[s + 1]) +
                             ", which have no route with bandwidth between them");
  }
  return layers;
}

void check_ranks_compute(const ExplicitOrders& orders, const Platform& platform) {
  check_rank_count(orders, platform);
  for (std::size_t r = 0; r < orders.ranks.size(); ++r)
    if (!orders.ranks[r].empty() && is_host_memory(platform.devices[r]))
      throw InputError(orders.file, "line " + std::to_string(r + 1) + " (rank " + std::to_string(r) + ")",
                       "rank " + std::to_string(r) + " is '" + platform.devices[r].name +
                           "', which is host memory (kind host) and runs no stage; leave its row empty or put the "
                           "compute devices first in the platform");
}

namespace {

// The four passes of a (stage, micro-batch) cell, as table indices.
struct Slot {
  enum : int { F, B, I, W };
};
int slot(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward:
      return Slot::F;
    case TaskKind::Backward:
      return Slot::B;
    case TaskKind::BackwardInput:
      return Slot::I;
    default:
      return Slot::W;
  }
}

struct StageInfo {
  int device = 0, first = 0, last = 0;
  double forward = 0, backward = 0, input_grad = 0, weight_grad = 0;  // flops of F, B, I, W
  double input = 0, output = 0, stash = 0, weights = 0;               // bytes
};

class OrdersBuilder {
 public:
  OrdersBuilder(const ExplicitOrders& o, const std::vector<StageInfo>& stages, int M, const Platform& platform,
                double comm_seconds, bool task_names)
      : names_(task_names),
        orders_(o),
        st_(stages),
        S_(static_cast<int>(stages.size())),
        M_(M),
        platform_(platform),
        comm_seconds_(comm_seconds),
        out_{TaskGraph(platform.size()), {}} {}

  // Iteration i+1 repeats the orders after iteration i on every device; its
  // data depend only on itself (no global flush).
  OrdersGraph build(const std::vector<std::vector<int>>& split, int iterations) {
    for (const StageInfo& s : st_) {
      out_.graph.add_static_memory(s.device, MemoryCategory::Weights, s.weights);
      out_.graph.add_static_memory(s.device, MemoryCategory::Gradients, s.weights);
    }
    // The second op of an overlapped pair runs on lane 1, beside its forward.
    lane1_.assign(4, std::vector<bool>(static_cast<std::size_t>(S_) * M_, false));
    for (const auto& rank : orders_.ranks)
      for (std::size_t i = 0; i + 1 < rank.size(); ++i)
        if (rank[i].overlaps_next)
          lane1_[slot(rank[i + 1].kind)][static_cast<std::size_t>(rank[i + 1].stage) * M_ + rank[i + 1].microbatch] =
              true;
    for (it_ = 0; it_ < iterations; ++it_) {
      for (auto& table : tasks_) table.assign(static_cast<std::size_t>(S_) * M_, kNone);
      output_transfer_ = gradient_transfer_ = tasks_[Slot::F];
      for (int m = 0; m < M_; ++m) {  // data dependencies point back: ids stay topological
        for (int s = 0; s < S_; ++s) forward(s, m);
        for (int s = S_ - 1; s >= 0; --s) backward(s, m, split[s][m]);
      }
      if (comm_seconds_ >= 0 && orders_.has_comms()) {
        communication_steps();
        continue;
      }
      for (const auto& rank : orders_.ranks)
        for (std::size_t i = 0; i < rank.size(); ++i)
          append(rank, i, task(slot(rank[i].kind), rank[i].stage, rank[i].microbatch));
    }
    return std::move(out_);
  }

 private:
  const bool names_;  // OrdersGraph::names wanted (validate's messages); generators skip them
  // Op i of a rank's order: beside the previous one when they form a pair.
  void append(const std::vector<OrderedOp>& rank, std::size_t i, TaskId id) {
    if (i > 0 && rank[i - 1].overlaps_next)
      out_.graph.append_beside_previous(id);
    else
      out_.graph.append_to_order(id);
  }

  TaskId& task(int slot, int s, int m) { return tasks_[slot][static_cast<std::size_t>(s) * M_ + m]; }
  // F(s, m)'s output sent to s+1; the input gradient of s+1 sent back to s.
  TaskId& output_transfer(int s, int m) { return output_transfer_[static_cast<std::size_t>(s) * M_ + m]; }
  TaskId& gradient_transfer(int s, int m) { return gradient_transfer_[static_cast<std::size_t>(s) * M_ + m]; }
  bool forward_sent(int s) const { return s + 1 < S_ && st_[s].device != st_[s + 1].device && st_[s].output > 0; }
  bool gradient_sent(int s) const { return s > 0 && st_[s].device != st_[s - 1].device && st_[s].input > 0; }

  TaskId add(TaskKind kind, int s, int m, double flops, const std::vector<TaskId>& deps) {
    Task t;
    t.kind = kind;
    t.device = st_[s].device;
    t.amount = flops;
    t.stage = s;
    t.layer_first = st_[s].first;
    t.layer_last = st_[s].last;
    t.microbatch = m;
    t.iteration = it_;
    t.priority = static_cast<double>(it_) * M_ + m;
    t.lane = lane1_[slot(kind)][static_cast<std::size_t>(s) * M_ + m] ? 1 : 0;
    const TaskId id = out_.graph.add(t, deps);
    if (names_) out_.names.push_back(cell_name({kind, s, m, 0}));
    return id;
  }

  TaskId transfer(int from, int to, int m, double bytes, TaskId producer, const std::string& what) {
    Task t;
    t.kind = TaskKind::Transfer;
    t.device = st_[from].device;
    t.peer = st_[to].device;
    t.amount = bytes;
    t.stage = from;
    t.layer_first = t.layer_last = st_[std::min(from, to)].last;  // the tensor crossing the boundary
    t.microbatch = m;
    t.iteration = it_;
    t.priority = static_cast<double>(it_) * M_ + m;
    const TaskId id = out_.graph.add(t, {producer});
    out_.graph.add_memory(id, t.device, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -bytes);
    out_.graph.add_memory(id, t.peer, MemoryCategory::CommBuffers, MemoryWhen::AtStart, bytes);
    if (names_)
      out_.names.push_back("transfer of " + out_.names[producer] + "'s " + what + " to " +
                           platform_.devices[t.peer].name);
    return id;
  }

  void forward(int s, int m) {
    std::vector<TaskId> deps;
    if (s > 0) deps.push_back(forward_sent(s - 1) ? output_transfer(s - 1, m) : task(Slot::F, s - 1, m));
    const TaskId id = add(TaskKind::Forward, s, m, st_[s].forward, deps);
    auto& g = out_.graph;
    const int dev = st_[s].device;
    g.add_memory(id, dev, MemoryCategory::Activations, MemoryWhen::AtStart, st_[s].stash);
    if (s > 0 && forward_sent(s - 1))
      g.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -st_[s - 1].output);
    task(Slot::F, s, m) = id;
    if (forward_sent(s)) {
      g.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtStart, st_[s].output);
      output_transfer(s, m) = transfer(s, s + 1, m, st_[s].output, id, "output");
    }
  }

  // B, or I then W: I takes B's place in the chain; W frees what B would.
  void backward(int s, int m, bool split) {
    std::vector<TaskId> deps{task(Slot::F, s, m)};  // the stash of F(s, m)
    if (s + 1 < S_) deps.push_back(gradient_sent(s + 1) ? gradient_transfer(s, m) : gradient_task(s + 1, m));
    const double flops = split ? st_[s].input_grad : st_[s].backward;
    const TaskId id = add(split ? TaskKind::BackwardInput : TaskKind::Backward, s, m, flops, deps);
    auto& g = out_.graph;
    const int dev = st_[s].device;
    task(split ? Slot::I : Slot::B, s, m) = id;
    TaskId last = id;
    if (split) task(Slot::W, s, m) = last = add(TaskKind::BackwardWeight, s, m, st_[s].weight_grad, {id});
    g.add_memory(last, dev, MemoryCategory::Activations, MemoryWhen::AtFinish, -st_[s].stash);
    if (s + 1 < S_ && gradient_sent(s + 1))
      g.add_memory(last, dev, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -st_[s + 1].input);
    if (gradient_sent(s)) {
      g.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtStart, st_[s].input);
      gradient_transfer(s - 1, m) = transfer(s, s - 1, m, st_[s].input, id, "input gradient");
    }
  }

  // The task that yields the input gradient of (s, m): B, or I when split.
  TaskId gradient_task(int s, int m) {
    return task(Slot::B, s, m) != kNone ? task(Slot::B, s, m) : task(Slot::I, s, m);
  }

  // PyTorch's dry-run model of the comms format (_simulate_comms_compute):
  // every SEND and RECV occupies its rank for comm_seconds_, in the row's
  // order; a SEND follows its producer, and a RECV may start when its SEND
  // does (so it waits for what precedes the SEND on the sender). The tensor
  // itself still crosses the link as a transfer.
  void communication_steps() {
    struct Item {
      const CommOp* comm;  // null: the compute op
      const OrderedOp* op;
      TaskId id;
      bool beside = false;  // the second op of an overlapped pair
    };
    const int R = static_cast<int>(orders_.ranks.size());
    std::vector<std::vector<Item>> rows(R);
    std::map<std::tuple<std::string, int, int>, std::pair<int, int>> send_at;  // -> (rank, position)
    for (int r = 0; r < R; ++r) {
      const auto& ops = orders_.ranks[r];
      static const std::vector<CommOp> none;
      const std::vector<CommOp>& comms = r < static_cast<int>(orders_.comms.size()) ? orders_.comms[r] : none;
      std::size_t c = 0;
      for (std::size_t i = 0; i <= ops.size(); ++i) {
        for (; c < comms.size() && comms[c].after == static_cast<int>(i); ++c) {
          if (comms[c].action.rfind("SEND", 0) == 0)
            send_at[{comms[c].action, comms[c].stage, comms[c].microbatch}] = {r, static_cast<int>(rows[r].size())};
          rows[r].push_back({&comms[c], nullptr, kNone});
        }
        if (i < ops.size())
          rows[r].push_back({nullptr, &ops[i], task(slot(ops[i].kind), ops[i].stage, ops[i].microbatch),
                             i > 0 && ops[i - 1].overlaps_next});
      }
    }
    // Sends depend on compute only; receives on whatever precedes their send,
    // possibly another receive: created in passes.
    for (bool progress = true; progress;) {
      progress = false;
      for (int r = 0; r < R; ++r)
        for (Item& item : rows[r]) {
          if (!item.comm || item.id != kNone) continue;
          const CommOp& c = *item.comm;
          std::vector<TaskId> deps;
          if (c.action == "SEND_F")
            deps.push_back(task(Slot::F, c.stage, c.microbatch));
          else if (c.action == "SEND_B")
            deps.push_back(gradient_task(c.stage, c.microbatch));
          else {
            const bool forward = c.action == "RECV_F";
            const auto it = send_at.find({forward ? "SEND_F" : "SEND_B", c.stage + (forward ? -1 : 1), c.microbatch});
            if (it == send_at.end()) throw std::invalid_argument("explicit orders: " + cell_name(c) + " has no SEND");
            const auto [rank, position] = it->second;
            if (position > 0) {
              const TaskId before = rows[rank][position - 1].id;
              if (before == kNone) continue;  // not created yet
              deps.push_back(before);
            }
          }
          if (std::find(deps.begin(), deps.end(), kNone) != deps.end())
            throw std::invalid_argument("explicit orders: " + cell_name(c) + " without its producer");
          Task t;
          t.kind = TaskKind::Communication;
          t.device = r;
          t.amount = comm_seconds_ * platform_.devices[r].speed;
          t.stage = c.stage;
          if (c.stage < S_) t.layer_first = st_[c.stage].first, t.layer_last = st_[c.stage].last;
          t.microbatch = c.microbatch;
          t.iteration = it_;
          t.priority = static_cast<double>(it_) * M_ + c.microbatch;
          item.id = out_.graph.add(t, deps);
          if (names_) out_.names.push_back(cell_name(c));
          progress = true;
        }
    }
    for (int r = 0; r < R; ++r)
      for (const Item& item : rows[r]) {
        if (item.id == kNone) throw std::invalid_argument("explicit orders: the receives wait on each other");
        if (item.beside)
          out_.graph.append_beside_previous(item.id);
        else
          out_.graph.append_to_order(item.id);
      }
  }

  const ExplicitOrders& orders_;
  const std::vector<StageInfo>& st_;
  int S_, M_, it_ = 0;
  const Platform& platform_;
  double comm_seconds_;  // < 0: SEND and RECV cells are not simulated
  OrdersGraph out_;
  std::vector<TaskId> tasks_[4];                             // [Slot][s * M + m]
  std::vector<TaskId> output_transfer_, gradient_transfer_;  // [s * M + m]
  std::vector<std::vector<bool>> lane1_;                     // [Slot][s * M + m]: the second op of an overlapped pair
};

}  // namespace

OrdersGraph build_orders_graph(const ExplicitOrders& orders, const std::vector<std::pair<int, int>>& stage_layers,
                               const Workload& w, const Platform& platform, int M, int iterations, double comm_seconds,
                               bool task_names) {
  const int S = orders.stages;
  auto fail = [](const std::string& what) { throw std::invalid_argument("explicit orders: " + what); };
  if (S < 1 || M < 1 || iterations < 1 || stage_layers.size() != static_cast<std::size_t>(S))
    fail("stages do not match");
  // Exactly once, each stage on one rank: what validate_orders reports in detail.
  std::vector<std::vector<int>> count(4, std::vector<int>(static_cast<std::size_t>(S) * M, 0));
  const std::vector<int> rank = orders.stage_ranks();
  for (std::size_t r = 0; r < orders.ranks.size(); ++r)
    for (const OrderedOp& op : orders.ranks[r]) {
      if (op.microbatch >= M) fail("micro-batch out of range in " + cell_name(op));
      if (rank[op.stage] != static_cast<int>(r)) fail("stage " + std::to_string(op.stage) + " on two ranks");
      ++count[slot(op.kind)][static_cast<std::size_t>(op.stage) * M + op.microbatch];
    }
  std::vector<std::vector<int>> split(S, std::vector<int>(M, 0));
  for (int s = 0; s < S; ++s)
    for (int m = 0; m < M; ++m) {
      const std::size_t i = static_cast<std::size_t>(s) * M + m;
      const bool whole = count[Slot::B][i] == 1 && count[Slot::I][i] == 0 && count[Slot::W][i] == 0;
      split[s][m] = count[Slot::B][i] == 0 && count[Slot::I][i] == 1 && count[Slot::W][i] == 1;
      if (count[Slot::F][i] != 1 || !(whole || split[s][m]))
        fail("stage " + std::to_string(s) + " micro-batch " + std::to_string(m) + " needs F and B (or I and W) once");
    }
  const double ref = reference_speed(w, platform);
  std::vector<StageInfo> stages(S);
  for (int s = 0; s < S; ++s) {
    StageInfo& st = stages[s];
    std::tie(st.first, st.last) = stage_layers[s];
    if (st.first < 0 || st.last < st.first || st.last >= static_cast<int>(w.layers.size()))
      fail("bad layer range for stage " + std::to_string(s));
    st.device = rank[s];
    for (int l = st.first; l <= st.last; ++l) {
      st.forward += cost_flops(w.layers[l].forward, ref);
      st.backward += cost_flops(w.layers[l].backward, ref);
      const auto [input_grad, weight_grad] = split_backward_flops(w.layers[l], ref);
      st.input_grad += input_grad;
      st.weight_grad += weight_grad;
      st.stash += l == 0 ? w.input : w.layers[l - 1].activation;
      st.weights += w.layers[l].weights;
    }
    st.output = w.layers[st.last].activation;
    st.input = st.first == 0 ? w.input : w.layers[st.first - 1].activation;
  }
  return OrdersBuilder(orders, stages, M, platform, comm_seconds, task_names).build(split, iterations);
}

}  // namespace pipesim
