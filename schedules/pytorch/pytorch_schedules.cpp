// The schedules of PyTorch pipelining (and the zero-bubble paper's ZB-H2)
// as generators, and `csv`, which runs a PyTorch compute CSV: each makes
// per-rank orders (rank r = device r) and builds them with
// build_orders_graph. Which PyTorch class each follows: docs/pytorch.md.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "schedules/pytorch/explicit_orders.hpp"
#include "schedules/pytorch/generated_orders.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "schedules/pytorch/zb_auto_orders.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

// Ranks for `v` stages per rank: the explicit placement's stages / v,
// placement.stages / v, or as many devices as the layers allow.
int rank_count(const Workload& w, const Platform& platform, int v) {
  const int L = static_cast<int>(w.layers.size());
  const int given = !w.placement.automatic ? static_cast<int>(w.placement.stage_layers.size()) : w.placement.stages;
  if (given > 0) {
    if (given % v != 0)
      throw InputError(w.file, "placement",
                       std::to_string(given) + " stages, but schedule '" + w.schedule + "' puts " + std::to_string(v) +
                           " stages on each device (expected a multiple of " + std::to_string(v) + ")");
    return given / v;
  }
  if (L < v)
    throw InputError(w.file, "layers",
                     "schedule '" + w.schedule + "' puts " + std::to_string(v) + " stages on each device, so it " +
                         "needs at least " + std::to_string(v) + " layers, got " + std::to_string(L));
  return std::min(platform.size(), L / v);
}

GeneratedSchedule build(const Workload& w, const Platform& platform, ExplicitOrders orders) {
  orders.file = w.file;
  const auto layers = orders_stage_layers(orders, w, platform);
  return {build_orders_graph(orders, layers, w, platform, w.microbatches, w.iterations, -1, false).graph, std::nullopt};
}

const std::set<std::string> kVirtualStagesParams = {"virtual_stages"}, kCsvParams = {"file", "comm_step"};

// The generators refuse what PyTorch refuses (std::invalid_argument: a
// micro-batch count that is not a multiple of its rounds, fewer micro-batches
// than stages): an error of the workload's micro-batches.
template <class Generate>
ExplicitOrders generated(const Workload& w, Generate generate) {
  try {
    return generate();
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "microbatches", e.what());
  }
}

// A generator of orders for (ranks, stages per rank, micro-batches).
template <ExplicitOrders (*orders)(int, int, int), int default_v>
GeneratedSchedule with_virtual_stages(const Workload& w, const Platform& platform) {
  check_params(w, kVirtualStagesParams);
  const int v = positive_param(w, "virtual_stages", default_v);
  const int p = rank_count(w, platform, v);
  return build(w, platform, generated(w, [&] { return orders(p, v, w.microbatches); }));
}

GeneratedSchedule zb_h1(const Workload& w, const Platform& platform) {
  check_params(w, {});
  const int p = rank_count(w, platform, 1);
  return build(w, platform, generated(w, [&] { return interleaved_zero_bubble_orders(p, 1, w.microbatches); }));
}

GeneratedSchedule zb_h2(const Workload& w, const Platform& platform) {
  check_params(w, {});
  const int p = rank_count(w, platform, 1);
  return build(w, platform, generated(w, [&] { return zb_h2_orders(p, w.microbatches); }));
}

const std::set<std::string> kZbAutoParams = {"memory_limit"};

// The zero-bubble paper's automatic schedule: its heuristic on each stage's
// pass times (on the stage's device), stash bytes (W keeping its share
// until it runs) and a limit of memory_limit x p stashes per stage (1: its
// ZB-1p, 1F1B's peak; 2: its ZB-2p); comm: the slowest boundary transfer.
GeneratedSchedule zb_auto(const Workload& w, const Platform& platform) {
  check_params(w, kZbAutoParams);
  const int limit = positive_param(w, "memory_limit", 1);
  const int p = rank_count(w, platform, 1);
  // The stages' layers, from orders that put stage s on rank s as the heuristic's do.
  ExplicitOrders one_per_rank;
  one_per_rank.file = w.file, one_per_rank.stages = p, one_per_rank.ranks.resize(p);
  for (int s = 0; s < p; ++s) one_per_rank.ranks[s].push_back({TaskKind::Forward, s, 0, 1});
  const std::vector<std::pair<int, int>> layers = orders_stage_layers(one_per_rank, w, platform);
  const double ref = reference_speed(w, platform);
  ZbStageFigures fig;
  for (int s = 0; s < p; ++s) {
    const double speed = platform.devices[s].speed;
    double forward = 0, input_grad = 0, weight_grad = 0, stash = 0, kept = 0;
    for (int l = layers[s].first; l <= layers[s].second; ++l) {
      forward += cost_flops(w.layers[l].forward, ref);
      const auto [i, wg] = split_backward_flops(w.layers[l], ref);
      input_grad += i, weight_grad += wg;
      stash += layer_stash(w, l), kept += layer_weight_stash(w, l);
    }
    fig.forward.push_back(forward / speed), fig.input_grad.push_back(input_grad / speed);
    fig.weight_grad.push_back(weight_grad / speed);
    fig.forward_bytes.push_back(stash), fig.input_grad_bytes.push_back(kept - stash);
    fig.weight_grad_bytes.push_back(-kept), fig.limit.push_back(limit * p * stash);
    if (s + 1 < p)
      fig.comm = std::max(fig.comm, platform.transfer_time(s, s + 1, w.layers[layers[s].second].activation));
  }
  ExplicitOrders orders;
  try {
    orders = zb_auto_orders(fig, w.microbatches);
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule.memory_limit", e.what());
  }
  return build(w, platform, std::move(orders));
}

GeneratedSchedule zbv(const Workload& w, const Platform& platform) {
  check_params(w, {});
  const int p = rank_count(w, platform, 2);
  return build(w, platform, generated(w, [&] { return zbv_orders(p, w.microbatches); }));
}

// DualPipeV: its overlapped pairs run side by side on two lanes of the device
// (build_orders_graph), sharing its speed.
GeneratedSchedule dualpipev(const Workload& w, const Platform& platform) {
  check_params(w, {});
  const int p = rank_count(w, platform, 2);
  return build(w, platform, generated(w, [&] { return dualpipev_orders(p, w.microbatches); }));
}

// schedule: {name: csv, file: orders.csv}: the file's path is relative to
// the workload's folder; micro-batches from the workload, else from the file.
GeneratedSchedule csv(const Workload& w, const Platform& platform) {
  check_params(w, kCsvParams);
  double comm_seconds = -1;  // SEND and RECV cells checked, not simulated
  if (const auto step = w.schedule_params.find("comm_step"); step != w.schedule_params.end()) {
    ParsedCost c;
    try {
      c = parse_cost(step->second);
    } catch (const std::invalid_argument& e) {
      throw InputError(w.file, "schedule.comm_step",
                       "expected a duration like '1s', got '" + step->second + "' (" + e.what() + ")");
    }
    if (c.flops || !(c.value >= 0) || c.value > kMaxCost)
      throw InputError(w.file, "schedule.comm_step", "expected a duration like '1s', got '" + step->second + "'");
    comm_seconds = c.value;
  }
  const auto it = w.schedule_params.find("file");
  if (it == w.schedule_params.end() || it->second.empty())
    throw InputError(w.file, "schedule.file",
                     "expected the path of a PyTorch compute CSV (schedule: {name: csv, file: orders.csv})");
  const std::string path = schedule_file_path(w);
  ExplicitOrders orders = read_orders_csv(path);
  check_ranks_compute(orders, platform);
  const int M = w.microbatches > 0 ? w.microbatches : orders.microbatches();
  const std::vector<Violation> wrong = validate_orders(orders, M, platform, w.microbatches <= 0);
  if (!wrong.empty()) throw InputError(path, "rows", wrong.front().message);
  const auto layers = orders_stage_layers(orders, w, platform);
  return {build_orders_graph(orders, layers, w, platform, M, w.iterations, comm_seconds, false).graph, std::nullopt};
}

// Per micro-batch and iteration at most F, I and W per stage and two
// transfers per boundary, with stages <= layers.
ScheduleSize orders_size(const Workload& w, const Platform&) {
  const double S = static_cast<double>(w.layers.size());
  return {std::max(1, w.microbatches) * static_cast<double>(w.iterations) * (5 * S - 2), 0,
          std::to_string(w.layers.size()) + " layers"};
}

// The same, with the ranks of a family of DEFAULT_V stages per rank (or
// virtual_stages where it reads them); unknown where the builder will
// refuse the workload: it says why.
template <int default_v, bool reads_virtual_stages>
ScheduleSize ranked_orders_size(const Workload& w, const Platform& platform) {
  ScheduleSize size = orders_size(w, platform);
  try {
    size.ranks =
        rank_count(w, platform, reads_virtual_stages ? positive_param(w, "virtual_stages", default_v) : default_v);
  } catch (const InputError&) {
    size.ranks = 0;
  }
  return size;
}

ExplicitOrders interleaved_1f1b(int p, int v, int M) { return interleaved_1f1b_orders(p, v, M); }
ExplicitOrders interleaved_zb(int p, int v, int M) { return interleaved_zero_bubble_orders(p, v, M); }
ExplicitOrders looped_bfs(int p, int v, int M) { return looped_bfs_orders(p, v, M); }

// Aliases are PyTorch's class names, lower case (schedule names are read
// case-insensitively).
const bool registered =
    register_schedule({"interleaved-1f1b", "scheduleinterleaved1f1b", "interleaved1f1b"},
                      with_virtual_stages<interleaved_1f1b, 2>, ranked_orders_size<2, true>) &&
    register_schedule({"interleaved-zb", "scheduleinterleavedzerobubble", "interleavedzerobubble", "zb1p"},
                      with_virtual_stages<interleaved_zb, 2>, ranked_orders_size<2, true>) &&
    register_schedule({"looped-bfs", "scheduleloopedbfs", "loopedbfs"}, with_virtual_stages<looped_bfs, 2>,
                      ranked_orders_size<2, true>) &&
    register_schedule({"zb-h1"}, zb_h1, ranked_orders_size<1, false>) &&
    register_schedule({"zb-h2"}, zb_h2, ranked_orders_size<1, false>) &&
    register_schedule({"zb-auto"}, zb_auto, ranked_orders_size<1, false>) &&
    register_schedule({"zbv", "schedulezbvzerobubble", "zbvzerobubble", "zb-v"}, zbv, ranked_orders_size<2, false>) &&
    register_schedule({"dualpipev", "scheduledualpipev"}, dualpipev, ranked_orders_size<2, false>) &&
    register_schedule({"csv"}, csv, orders_size) &&
    register_schedule_params("interleaved-1f1b", kVirtualStagesParams) &&
    register_schedule_params("interleaved-zb", kVirtualStagesParams) &&
    register_schedule_params("looped-bfs", kVirtualStagesParams) && register_schedule_params("zb-h1", {}) &&
    register_schedule_params("zb-h2", {}) && register_schedule_params("zb-auto", kZbAutoParams) &&
    register_schedule_params("zbv", {}) && register_schedule_params("dualpipev", {}) &&
    register_schedule_params("csv", kCsvParams);

}  // namespace
}  // namespace pipesim
