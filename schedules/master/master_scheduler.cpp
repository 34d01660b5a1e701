#include "schedules/master/master_scheduler_internal.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "schedules/schedule_params.hpp"
#include "schedules/stages/partition.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

constexpr TaskId kNone = static_cast<TaskId>(-1);

bool grouped(MasterScheme scheme) { return scheme == MasterScheme::LPP || scheme == MasterScheme::FSLPP; }

std::string str(int v) { return std::to_string(v); }

}  // namespace

std::string_view to_string(MasterScheme scheme) {
  switch (scheme) {
    case MasterScheme::DDP:
      return "ddp";
    case MasterScheme::FSDP:
      return "fsdp";
    case MasterScheme::GPipe:
      return "gpipe";
    case MasterScheme::LPP:
      return "lpp";
    case MasterScheme::FSLPP:
      return "fslpp";
  }
  return "?";
}

std::string_view to_string(MasterPriority priority) {
  switch (priority) {
    case MasterPriority::OneFOneB:
      return "1f1b";
    case MasterPriority::DepthFirst:
      return "depth-first";
    case MasterPriority::BreadthFirst:
      return "breadth-first";
  }
  return "?";
}

std::optional<MasterScheme> parse_master_scheme(std::string_view name) {
  for (MasterScheme s :
       {MasterScheme::DDP, MasterScheme::FSDP, MasterScheme::GPipe, MasterScheme::LPP, MasterScheme::FSLPP})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<MasterPriority> parse_master_priority(std::string_view name) {
  for (MasterPriority p : {MasterPriority::OneFOneB, MasterPriority::DepthFirst, MasterPriority::BreadthFirst})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

MasterShape master_shape(const MasterSpec& spec, int S, int B, int workers) {
  const std::string scheme(to_string(spec.scheme));
  if (S < 1) throw MasterSpecError("stages", "needs at least one stage, got " + str(S));
  if (B < 1) throw MasterSpecError("microbatches", "needs at least one micro-batch, got " + str(B));
  if (spec.prefetch < 0) throw MasterSpecError("prefetch", "must be >= 0, got " + str(spec.prefetch));
  MasterShape shape;
  shape.S = S;
  shape.B = B;
  if (grouped(spec.scheme)) {
    if (spec.G < 1) throw MasterSpecError("G", scheme + " needs G (groups), an integer >= 1");
    if (spec.R < 1) throw MasterSpecError("R", scheme + " needs R (workers per group), an integer >= 1");
    if (S % spec.R != 0)
      throw MasterSpecError("R", scheme + " needs R to divide S (each worker of a group takes S/R stages): R = " +
                                     str(spec.R) + ", S = " + str(S));
    if (spec.G > B)
      throw MasterSpecError("G", scheme + " with G = " + str(spec.G) + " groups but only B = " + str(B) +
                                     " micro-batches: groups " + str(B) + ".." + str(spec.G - 1) +
                                     " would have nothing to do");
    shape.G = spec.G;
    shape.R = spec.R;
    shape.W = spec.G * spec.R;
    if (workers != 0 && workers != shape.W)
      throw MasterSpecError("workers", scheme + " needs W = G R = " + str(spec.G) + " x " + str(spec.R) + " = " +
                                           str(shape.W) + " workers, got workers = " + str(workers));
    return shape;
  }
  if (spec.G != 0) throw MasterSpecError("G", "only lpp and fslpp have groups; " + scheme + " takes no G");
  if (spec.R != 0) throw MasterSpecError("R", "only lpp and fslpp have groups; " + scheme + " takes no R");
  switch (spec.scheme) {
    case MasterScheme::DDP:
    case MasterScheme::FSDP:
      shape.W = B;
      if (workers != 0 && workers != B)
        throw MasterSpecError("workers", scheme + " runs one micro-batch per worker, so W = B = " + str(B) +
                                             ", got workers = " + str(workers));
      if (spec.scheme == MasterScheme::FSDP && S > B)
        throw MasterSpecError("scheme", "fsdp keeps stage s's weights on worker s, so it needs S <= W = B; got S = " +
                                            str(S) + ", B = " + str(B));
      break;
    case MasterScheme::GPipe:
      shape.W = S;
      if (workers != 0 && workers != S)
        throw MasterSpecError(
            "workers", "gpipe runs one stage per worker, so W = S = " + str(S) + ", got workers = " + str(workers));
      break;
    default:
      break;
  }
  return shape;
}

int master_compute_worker(const MasterSpec& spec, const MasterShape& shape, int s, int b) {
  switch (spec.scheme) {
    case MasterScheme::DDP:
    case MasterScheme::FSDP:
      return b;
    case MasterScheme::GPipe:
      return s;
    case MasterScheme::LPP:
    case MasterScheme::FSLPP:
      return shape.R * (b % shape.G) + s % shape.R;
  }
  return -1;
}

int master_weight_owner(const MasterSpec& spec, const MasterShape& shape, int s, int b) {
  switch (spec.scheme) {
    case MasterScheme::DDP:
      return b;
    case MasterScheme::FSDP:
    case MasterScheme::GPipe:
      return s;
    case MasterScheme::LPP:
      return shape.R * (b % shape.G) + s % shape.R;
    case MasterScheme::FSLPP:
      return shape.R * (s % shape.G) + s % shape.R;
  }
  return -1;
}

double master_priority(const MasterSpec& spec, const MasterShape& shape, int s, int b, bool backward) {
  const double S = shape.S, B = shape.B;
  const double k = backward ? 2 * S - 1 - s : s;
  switch (spec.priority) {
    case MasterPriority::OneFOneB:
      return (backward ? 0 : 2 * S * B) + 2 * S * b + k;
    case MasterPriority::DepthFirst:
      return 2 * S * b + k;
    case MasterPriority::BreadthFirst:
      return B * k + b;
  }
  return 0;
}

std::vector<MasterStage> uniform_master_stages(int S, double forward_flops, double backward_flops,
                                               double activation_bytes, double weight_bytes) {
  std::vector<MasterStage> stages(S);
  for (int s = 0; s < S; ++s) {
    MasterStage& st = stages[s];
    st.first_layer = st.last_layer = s;
    st.forward_flops = forward_flops;
    st.backward_flops = backward_flops;
    st.output_bytes = activation_bytes;
    st.stash_bytes = activation_bytes;
    st.weight_bytes = weight_bytes;
  }
  return stages;
}

TaskGraph build_master_graph(const MasterSpec& spec, const std::vector<MasterStage>& stages, int microbatches,
                             int device_count) {
  const MasterShape shape = master_shape(spec, static_cast<int>(stages.size()), microbatches);
  const int S = shape.S, B = shape.B;
  if (shape.W > device_count)
    throw std::invalid_argument(std::string(to_string(spec.scheme)) + " needs " + str(shape.W) +
                                " workers but the platform has " + str(device_count) + " devices");
  TaskGraph g(device_count);
  auto compute = [&](int s, int b) { return master_compute_worker(spec, shape, s, b); };
  auto owner = [&](int s, int b) { return master_weight_owner(spec, shape, s, b); };

  // Static memory: every owner of a stage holds its weights and a gradient
  // buffer of the same size for the whole round.
  {
    std::vector<char> owns(static_cast<size_t>(shape.W));
    for (int s = 0; s < S; ++s) {
      std::fill(owns.begin(), owns.end(), 0);
      for (int b = 0; b < B; ++b) owns[owner(s, b)] = 1;
      for (int w = 0; w < shape.W; ++w)
        if (owns[w] && stages[s].weight_bytes > 0) {
          g.add_static_memory(w, MemoryCategory::Weights, stages[s].weight_bytes);
          g.add_static_memory(w, MemoryCategory::Gradients, stages[s].weight_bytes);
        }
    }
  }

  // Ids per (s, b), row-major by stage.
  const size_t n = static_cast<size_t>(S) * B;
  std::vector<TaskId> fwd(n, kNone), bwd(n, kNone);
  auto at = [B](int s, int b) { return static_cast<size_t>(s) * B + b; };

  // A tensor crossing devices: the transfer task and the comm buffers on both
  // ends (sender: from its producer's start; receiver: until its consumer ends).
  struct Crossing {
    TaskId transfer;
    int to;
    double bytes;
  };
  auto cross = [&](TaskId producer, int from, int to, double bytes, int stage, int b,
                   const MasterStage& st) -> Crossing {
    Task t;
    t.kind = TaskKind::Transfer;
    t.device = from;
    t.peer = to;
    t.amount = bytes;
    t.stage = stage;
    t.layer_first = st.first_layer;
    t.layer_last = st.last_layer;
    t.microbatch = b;
    const TaskId id = g.add(t, {producer});
    if (bytes > 0) {
      g.add_memory(producer, from, MemoryCategory::CommBuffers, MemoryWhen::AtStart, bytes);
      g.add_memory(id, from, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -bytes);
      g.add_memory(id, to, MemoryCategory::CommBuffers, MemoryWhen::AtStart, bytes);
    }
    return {id, to, bytes};
  };
  auto consumed = [&](const Crossing& c, TaskId consumer) {
    if (c.bytes > 0) g.add_memory(consumer, c.to, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -c.bytes);
  };

  std::vector<TaskId> deps;
  // Chain position k = 0 .. 2S-1 (F(0..S-1), then B(S-1..0)), all batches at
  // each position: every dependency is emitted before its dependant.
  for (int k = 0; k < 2 * S; ++k) {
    const bool backward = k >= S;
    const int s = backward ? 2 * S - 1 - k : k;
    const MasterStage& st = stages[s];
    for (int b = 0; b < B; ++b) {
      const int c = compute(s, b);
      deps.clear();
      std::optional<Crossing> input;
      if (!backward && s > 0) {
        const int p = compute(s - 1, b);
        if (p != c) {
          input = cross(fwd[at(s - 1, b)], p, c, stages[s - 1].output_bytes, s - 1, b, stages[s - 1]);
          deps.push_back(input->transfer);
        } else {
          deps.push_back(fwd[at(s - 1, b)]);
        }
      } else if (backward && s == S - 1) {
        deps.push_back(fwd[at(s, b)]);  // same worker: w_compute does not depend on d
      } else if (backward) {
        const int p = compute(s + 1, b);
        if (p != c) {
          input = cross(bwd[at(s + 1, b)], p, c, st.output_bytes, s + 1, b, stages[s + 1]);
          deps.push_back(input->transfer);
        } else {
          deps.push_back(bwd[at(s + 1, b)]);
        }
      }
      const int o = owner(s, b);
      if (o != c && (!backward || spec.refetch)) {
        Task f;
        f.kind = TaskKind::WeightFetch;
        f.device = o;
        f.peer = c;
        f.amount = st.weight_bytes;
        f.stage = s;
        f.layer_first = st.first_layer;
        f.layer_last = st.last_layer;
        f.microbatch = b;
        // Issued when the job `prefetch` + 1 places earlier in the chain ends.
        const int trigger = k - 1 - spec.prefetch;
        const TaskId id = trigger < 0   ? g.add(f)
                          : trigger < S ? g.add(f, {fwd[at(trigger, b)]})
                                        : g.add(f, {bwd[at(2 * S - 1 - trigger, b)]});
        if (st.weight_bytes > 0) g.add_memory(id, c, MemoryCategory::Weights, MemoryWhen::AtStart, st.weight_bytes);
        deps.push_back(id);
      }
      Task job;
      job.kind = backward ? TaskKind::Backward : TaskKind::Forward;
      job.device = c;
      job.amount = backward ? st.backward_flops : st.forward_flops;
      job.stage = s;
      job.layer_first = st.first_layer;
      job.layer_last = st.last_layer;
      job.microbatch = b;
      job.priority = master_priority(spec, shape, s, b, backward);
      const TaskId id = g.add(job, deps);
      (backward ? bwd : fwd)[at(s, b)] = id;
      if (input) consumed(*input, id);
      if (!backward) {
        if (st.stash_bytes > 0) g.add_memory(id, c, MemoryCategory::Activations, MemoryWhen::AtStart, st.stash_bytes);
      } else if (st.stash_bytes > 0) {
        g.add_memory(id, c, MemoryCategory::Activations, MemoryWhen::AtFinish, -st.stash_bytes);
      }
      // A fetched copy goes when its last user ends: F with refetch, else B.
      if (o != c && (backward || spec.refetch) && st.weight_bytes > 0)
        g.add_memory(id, c, MemoryCategory::Weights, MemoryWhen::AtFinish, -st.weight_bytes);
    }
  }
  return g;
}

namespace {

const std::set<std::string> kParams = {"G", "R", "prefetch", "priority", "refetch", "scheme", "workers"};

// 0 when absent.
int int_param(const Workload& w, const std::string& name, int min) {
  const auto it = w.schedule_params.find(name);
  if (it == w.schedule_params.end()) return 0;
  const std::string& v = it->second;
  if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < min)
    throw InputError(w.file, "schedule." + name, "expected an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return std::stoi(v);
}

MasterSpec workload_spec(const Workload& w) {
  check_params(w, kParams);
  MasterSpec spec;
  const auto scheme = w.schedule_params.find("scheme");
  if (scheme == w.schedule_params.end())
    throw InputError(w.file, "schedule.scheme", "missing: expected one of ddp, fsdp, gpipe, lpp, fslpp");
  if (auto s = parse_master_scheme(scheme->second))
    spec.scheme = *s;
  else
    throw InputError(w.file, "schedule.scheme",
                     "expected one of ddp, fsdp, gpipe, lpp, fslpp, got '" + scheme->second + "'");
  if (const auto p = w.schedule_params.find("priority"); p != w.schedule_params.end()) {
    if (auto pr = parse_master_priority(p->second))
      spec.priority = *pr;
    else
      throw InputError(w.file, "schedule.priority",
                       "expected one of 1f1b, depth-first, breadth-first, got '" + p->second + "'");
  }
  spec.G = int_param(w, "G", 1);
  spec.R = int_param(w, "R", 1);
  if (w.schedule_params.count("prefetch")) spec.prefetch = int_param(w, "prefetch", 0);
  if (const auto r = w.schedule_params.find("refetch"); r != w.schedule_params.end()) {
    if (r->second == "true" || r->second == "yes")
      spec.refetch = true;
    else if (r->second != "false" && r->second != "no")
      throw InputError(w.file, "schedule.refetch", "expected true or false, got '" + r->second + "'");
  }
  return spec;
}

// auto: one stage per layer; {stages: N}: N contiguous stages balancing
// forward + backward flops (the min-max partition, on identical workers).
std::vector<MasterStage> workload_stages(const Workload& w, double ref) {
  const int L = static_cast<int>(w.layers.size());
  if (L == 0) throw InputError(w.file, "layers", "no layers");
  if (!w.placement.automatic)
    throw InputError(w.file, "placement",
                     "schedule 'master' places work with its maps; give placement: auto (one stage per layer) or "
                     "{stages: N}, not a list of hosts");
  if (w.placement.partition != PartitionRule::Auto)
    throw InputError(w.file, "placement.partition",
                     "schedule 'master' balances its stages' flops itself (the min-max partition); leave it out");
  const int S = w.placement.stages > 0 ? w.placement.stages : L;
  if (w.placement.stages < 0) throw InputError(w.file, "placement.stages", "must be positive");
  if (S > L)
    throw InputError(w.file, "placement.stages",
                     std::to_string(S) + " stages but only " + std::to_string(L) + " layers");
  std::vector<int> last(S);
  if (S == L) {
    for (int s = 0; s < S; ++s) last[s] = s;
  } else {
    PartitionProblem pb;
    std::vector<double> row(L);
    for (int l = 0; l < L; ++l) row[l] = cost_flops(w.layers[l].forward, ref) + cost_flops(w.layers[l].backward, ref);
    pb.layer_seconds.assign(S, row);
    pb.boundary_seconds.assign(S - 1, std::vector<double>(L, 0.0));
    last = partition_chain(pb).last_layer;
  }
  std::vector<MasterStage> stages(S);
  int first = 0;
  for (int s = 0; s < S; ++s) {
    MasterStage& st = stages[s];
    st.first_layer = first;
    st.last_layer = last[s];
    for (int l = first; l <= last[s]; ++l) {
      const Layer& layer = w.layers[l];
      st.forward_flops += cost_flops(layer.forward, ref);
      st.backward_flops += cost_flops(layer.backward, ref);
      st.stash_bytes += l == 0 ? w.input : w.layers[l - 1].activation;
      st.weight_bytes += layer.weights;
    }
    st.output_bytes = w.layers[last[s]].activation;
    first = last[s] + 1;
  }
  return stages;
}

}  // namespace

GeneratedSchedule master_schedule(const Workload& w, const Platform& platform) {
  if (w.iterations != 1)
    throw InputError(w.file, "iterations",
                     "schedule 'master' simulates one round of seed 003's master scheduler (every micro-batch "
                     "forward and backward once); set iterations: 1, got " +
                         std::to_string(w.iterations));
  const MasterSpec spec = workload_spec(w);
  if (platform.size() == 0) throw InputError(platform.file, "hosts", "no devices");
  const double ref = reference_speed(w, platform);
  const std::vector<MasterStage> stages = workload_stages(w, ref);
  MasterShape shape;
  try {
    shape = master_shape(spec, static_cast<int>(stages.size()), w.microbatches, int_param(w, "workers", 1));
  } catch (const MasterSpecError& e) {
    const std::string where = e.param() == "stages"         ? "placement.stages"
                              : e.param() == "microbatches" ? "microbatches"
                                                            : "schedule." + e.param();
    throw InputError(w.file, where, e.what());
  }
  const std::string scheme(to_string(spec.scheme));
  if (shape.W > platform.size())
    throw InputError(w.file, w.schedule_params.count("workers") ? "schedule.workers" : "schedule",
                     scheme + " needs W = " + std::to_string(shape.W) + " workers (S = " + std::to_string(shape.S) +
                         ", B = " + std::to_string(shape.B) +
                         (grouped(spec.scheme) ? ", G = " + std::to_string(shape.G) + ", R = " + std::to_string(shape.R)
                                               : std::string()) +
                         ") but platform " + platform.file + " has " + std::to_string(platform.size()) + " hosts");
  for (int d = 0; d < shape.W; ++d)
    if (!(platform.devices[d].speed > 0))
      throw InputError(platform.file, "host " + platform.devices[d].name, "speed must be positive");
  // Every pair of workers that exchanges a tensor needs a route.
  std::set<std::pair<int, int>> pairs;
  for (int s = 0; s < shape.S; ++s)
    for (int b = 0; b < shape.B; ++b) {
      const int c = master_compute_worker(spec, shape, s, b);
      const int o = master_weight_owner(spec, shape, s, b);
      if (o != c) pairs.insert({o, c});
      if (s > 0) {
        const int p = master_compute_worker(spec, shape, s - 1, b);
        if (p != c) pairs.insert({p, c}), pairs.insert({c, p});
      }
    }
  for (const auto& [from, to] : pairs) {
    const Path& path = platform.path(from, to);
    const std::string what =
        scheme + " moves data from " + platform.devices[from].name + " to " + platform.devices[to].name + " but ";
    if (!path.exists) throw InputError(w.file, "schedule", what + "the platform has no route between them");
    if (!(path.bandwidth > 0)) throw InputError(w.file, "schedule", what + "their route has zero bandwidth");
  }
  return {build_master_graph(spec, stages, w.microbatches, platform.size()), std::nullopt};
}

namespace {
const bool registered = register_schedule({"master"}, master_schedule) && register_schedule_params("master", kParams);
}  // namespace

}  // namespace pipesim
