#include "schedules/memory_saving/stage_programs.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "schedules/memory_saving/combined.hpp"
#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/training_state.hpp"
#include "sim/format.hpp"
#include "sim/input_error.hpp"
#include "workloads/costs.hpp"

namespace pipesim::memory_saving {

namespace {

constexpr auto kActivations = MemoryCategory::Activations;

Solution solve(const Chain& chain, const std::string& policy, double limit, int slots, double bandwidth) {
  if (policy == "both") return solve_combined(chain, limit, slots, bandwidth);
  if (policy == "offload") return solve_offload_only(chain, limit, slots, bandwidth);
  return solve_rematerialization(chain, limit, slots);
}

// The smallest limit at which the program, on its grid, finds a sequence:
// from the least any sequence needs, up by 1 % steps (the grid rounds sizes
// up, so just above the least it may still fail).
double smallest_working_limit(const Chain& chain, const std::string& policy, int slots, double bandwidth) {
  double limit = policy == "both"      ? min_feasible_limit_combined(chain, bandwidth)
                 : policy == "offload" ? min_feasible_limit_offload_only(chain, bandwidth)
                                       : min_feasible_limit(chain);
  for (int step = 0; step < 2000; ++step, limit *= 1.01)
    if (solve(chain, policy, limit, slots, bandwidth).feasible) return limit;
  // The grid's cells scale with the limit, so a grid too coarse for the
  // chain fails at every limit: say so rather than name one that fails too.
  return INFINITY;
}

// The line for a grid too coarse for any limit.
std::string no_limit_works(const std::string& file, const std::string& field, const std::string& where,
                           const std::string& policy, int slots) {
  return file + ": " + field + ".slots: no limit works for " + where + " with " + std::to_string(slots) +
         " slots (policy " + policy + "): the memory grid is too coarse for its layers; raise slots (default 500)";
}

// What a micro-batch holds while it waits between its phases: the memory in
// use during the first forward of the last layer (a^0, δ^L, what is kept).
double held_between_phases(const Solution& solution, int last_layer) {
  for (const Operation& op : solution.ops)
    if (op.layer == last_layer &&
        (op.kind == OpKind::ForwardAll || op.kind == OpKind::ForwardCheckpoint || op.kind == OpKind::ForwardNone))
      return op.memory;
  return solution.peak_memory;
}

std::string bytes_text(double bytes) {
  std::ostringstream os;
  os << std::llround(bytes) << " bytes (" << fmt::bytes(bytes) << ")";
  return os.str();
}

}  // namespace

Chain stage_chain(const Workload& workload, const Platform& platform, const Stage& stage) {
  const double ref = reference_speed(workload, platform);
  const double speed = platform.devices[stage.device].speed;
  Chain chain;
  chain.input_size = chain.input_gradient_size = stage.input_bytes;
  for (int l = stage.first_layer; l <= stage.last_layer; ++l) {
    const Layer& layer = workload.layers[l];
    ChainLayer c;
    c.forward_time = cost_flops(layer.forward, ref) / speed;
    c.backward_time = cost_flops(layer.backward, ref) / speed;
    c.output_size = c.gradient_size = layer.activation;
    // The tape ā^l: what the layer keeps beyond its input a^{l-1} (which the
    // chain holds as the previous output), plus its output, which the tape
    // contains. A stash below the input (a layer keeping only part of it) is
    // counted as the output alone: never less than the layer holds.
    const double input = l == 0 ? workload.input : workload.layers[l - 1].activation;
    c.tape_size = layer.activation + std::max(0.0, layer_stash(workload, l) - input);
    c.forward_overhead = layer.forward_workspace;
    c.backward_overhead = layer.backward_workspace;
    chain.layers.push_back(c);
  }
  return chain;
}

int in_flight(const StageSequence& sequence) {
  int open = 0, most = 0;
  for (const Op& op : sequence) {
    open += op.kind == TaskKind::Forward ? 1 : -1;
    most = std::max(most, open);
  }
  return most;
}

void check_stage_count(const Workload& workload, std::size_t stages) {
  const std::size_t given = workload.memory_saving_stages.size();
  if (given > 0 && given != stages)
    throw InputError(workload.file, "memory_saving",
                     std::to_string(given) + " entries for " + std::to_string(stages) +
                         " stages: give one per stage, or a single map for all");
}

const MemorySaving& stage_option(const Workload& workload, std::size_t stage) {
  return workload.memory_saving_stages.empty() ? workload.memory_saving : workload.memory_saving_stages.at(stage);
}

std::vector<StageProgram> plan_stage_programs(const Workload& workload, const Platform& platform, const StagePlan& plan,
                                              const std::vector<StageSequence>& sequences) {
  if (!saves_memory(workload)) return {};
  std::vector<ProgramStage> stages;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& stage = plan.stages[s];
    ProgramStage p;
    p.device = stage.device;
    p.first_layer = stage.first_layer, p.last_layer = stage.last_layer;
    p.chain = stage_chain(workload, platform, stage);
    p.in_flight = p.device_in_flight = std::max(1, in_flight(sequences[s]));
    // Outside the budget: weights, the gradient buffer, the training state (optimizer, reserve),
    // and where tensors cross to a neighbour one buffer each way (the first stage receives no
    // input, the last sends no output).
    const bool first = s == 0, last = s + 1 == plan.stages.size();
    p.reserved = 2 * stage.weight_bytes + training_state_bytes(workload, stage.first_layer, stage.last_layer) +
                 (first ? 0 : 2 * stage.input_bytes) + (last ? 0 : 2 * stage.output_bytes);
    stages.push_back(std::move(p));
  }
  return solve_stage_programs(workload, platform, stages);
}

std::vector<StageProgram> solve_stage_programs(const Workload& workload, const Platform& platform,
                                               const std::vector<ProgramStage>& stages) {
  std::vector<StageProgram> programs;
  if (!saves_memory(workload)) return programs;
  const bool per_stage = !workload.memory_saving_stages.empty();
  check_stage_count(workload, stages.size());
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const MemorySaving& option = stage_option(workload, s);
    const std::string field = per_stage ? "memory_saving[" + std::to_string(s) + "]" : "memory_saving";
    // The programs' tables refuse a grid too large ("slots: ... table cells"): the workload's field.
    try {
      const ProgramStage& stage = stages[s];
      const Device& device = platform.devices[stage.device];
      StageProgram p;
      p.active = option.policy != "none";
      if (!p.active) {
        programs.push_back(std::move(p));
        continue;
      }
      p.chain = stage.chain;
      double bandwidth = 0;
      if (uses_host_memory(option.policy)) {
        p.host_memory = host_memory_of(platform, stage.device);
        if (p.host_memory < 0)
          throw InputError(workload.file, field + ".policy",
                           std::string(option.policy == "both" ? "both offloads" : "offload moves activations") +
                               " to host memory, but platform " + platform.file + " routes no host of kind host to " +
                               device.name);
        bandwidth = std::min(platform.path(stage.device, p.host_memory).bandwidth,
                             platform.path(p.host_memory, stage.device).bandwidth);
      }
      const int flight = stage.in_flight, sharing = std::max(stage.device_in_flight, flight);
      const double reserved = stage.reserved;
      // This stage's part of the device's free memory: all of it unless other stages share the device.
      const double free = (device.memory - reserved) * flight / sharing;
      double limit = option.limit > 0 ? option.limit : (device.memory - reserved) / sharing;
      const std::string where = "stage " + std::to_string(s) + " (" + device.name + ")";
      // fit: one micro-batch at its peak beside flight - 1 waiting between their phases.
      const auto fit_need = [&](const Solution& sol) {
        return sol.peak_memory + (flight - 1) * held_between_phases(sol, p.chain.length());
      };
      if (option.fit) {
        double low = smallest_working_limit(p.chain, option.policy, option.slots, bandwidth);
        if (!std::isfinite(low))
          throw InfeasibleRun(no_limit_works(workload.file, field, where, option.policy, option.slots));
        const Solution least = solve(p.chain, option.policy, low, option.slots, bandwidth);
        if (!least.feasible || fit_need(least) > free)
          throw InfeasibleRun(workload.file + ": " + field + ".limit: " + where + " needs at least " +
                              bytes_text(least.feasible ? fit_need(least) : low * flight) + " for " +
                              std::to_string(flight) + (flight == 1 ? " micro-batch" : " micro-batches") +
                              " in flight (policy " + option.policy + ", " + std::to_string(option.slots) +
                              " slots), the device has " + bytes_text(free) + " after static memory and buffers (fit)");
        double high = free;
        for (int step = 0; step < 40 && high - low > 1e-6 * high; ++step) {
          const double middle = (low + high) / 2;
          const Solution sol = solve(p.chain, option.policy, middle, option.slots, bandwidth);
          (sol.feasible && fit_need(sol) <= free ? low : high) = middle;
        }
        limit = low;
      }
      const auto infeasible = [&](double given) {
        // The smallest limit that works: this stage's under auto (its budget is its own), the
        // largest over the stages under an explicit limit (one limit for all).
        double least = smallest_working_limit(p.chain, option.policy, option.slots, bandwidth);
        std::string who = where;
        for (std::size_t o = s + 1; !per_stage && option.limit > 0 && o < stages.size(); ++o) {
          const ProgramStage& other = stages[o];
          const double bw = uses_host_memory(option.policy) ? [&] {
            const int h = host_memory_of(platform, other.device);
            return h < 0 ? 0.0 : std::min(platform.path(other.device, h).bandwidth, platform.path(h, other.device).bandwidth);
          }() : 0.0;
          const double need = smallest_working_limit(other.chain, option.policy, option.slots, bw);
          if (need > least)
            least = need, who = "stage " + std::to_string(o) + " (" + platform.devices[other.device].name + ")";
        }
        if (!std::isfinite(least))
          throw InfeasibleRun(no_limit_works(workload.file, field, who, option.policy, option.slots));
        std::string what = workload.file + ": " + field + ".limit: " + who + " needs at least " + bytes_text(least) +
                           " per micro-batch (policy " + option.policy + ", " + std::to_string(option.slots) +
                           " slots), the limit is " + bytes_text(given);
        if (option.limit <= 0)
          what += " (auto: " + fmt::bytes(device.memory) + " minus " + fmt::bytes(reserved) +
                  " static and buffers, over " + std::to_string(sharing) +
                  (sharing == 1 ? " micro-batch" : " micro-batches") + " in flight)";
        throw InfeasibleRun(what);
      };
      if (!(limit > 0)) infeasible(std::max(limit, 0.0));
      p.solution = solve(p.chain, option.policy, limit, option.slots, bandwidth);
      if (!p.solution.feasible) infeasible(limit);
      // Split after the first forward of the last layer: it produces the stage's output.
      const int L = p.chain.length();
      const std::vector<Step> steps = steps_of(p.solution.ops);
      std::size_t cut = 0;
      while (cut < steps.size() &&
             !(steps[cut].second == L && steps[cut].first != OpKind::Backward && steps[cut].first != OpKind::Offload &&
               steps[cut].first != OpKind::Prefetch && steps[cut].first != OpKind::Free))
        ++cut;
      p.forward_steps.assign(steps.begin(), steps.begin() + static_cast<long>(cut) + 1);
      p.backward_steps.assign(steps.begin() + static_cast<long>(cut) + 1, steps.end());

      StageMemorySaving& m = p.summary;
      m.stage = static_cast<int>(s);
      m.first_layer = stage.first_layer, m.last_layer = stage.last_layer;
      m.device = stage.device;
      m.policy = option.policy;
      m.limit = limit;
      m.in_flight = flight;
      std::vector<Step> keep_all;
      for (int i = 1; i <= L; ++i) keep_all.push_back({OpKind::ForwardAll, i});
      for (int i = L; i >= 1; --i) keep_all.push_back({OpKind::Backward, i});
      const std::vector<Operation> baseline = replay_sequence(p.chain, keep_all);
      m.baseline_seconds = end_time(baseline);
      m.baseline_bytes = peak_memory(baseline);
      m.seconds = p.solution.makespan;
      m.bytes = p.solution.peak_memory;
      std::vector<bool> seen(L + 1, false);
      for (const Step& step : steps) {
        const bool forward = step.first == OpKind::ForwardAll || step.first == OpKind::ForwardCheckpoint ||
                             step.first == OpKind::ForwardNone;
        if (forward) m.recomputed += seen[step.second] ? 1 : 0, seen[step.second] = true;
        m.offloaded += step.first == OpKind::Offload;
      }
      programs.push_back(std::move(p));
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what(), prefix = "slots: ";
      if (what.rfind(prefix, 0) == 0) throw InputError(workload.file, field + ".slots", what.substr(prefix.size()));
      throw InputError(workload.file, field, what);
    }
  }
  return programs;
}

TaskId ProgramEmitter::emit(TaskGraph& graph, const Task& base, const std::vector<TaskId>& input) {
  const StageProgram& p = programs_.at(base.stage);
  const auto key = std::make_tuple(base.stage, base.iteration, base.microbatch);
  if (base.kind == TaskKind::Forward) {
    ChainPlacement where;
    where.gpu = base.device;
    where.host_memory = p.host_memory;
    where.gpu_speed = platform_.devices[base.device].speed;
    where.stage = base.stage;
    where.first_layer = plan_.stages[base.stage].first_layer;
    where.microbatch = base.microbatch;
    where.iteration = base.iteration;
    where.priority = base.priority;
    auto emitter = std::make_unique<SequenceEmitter>(graph, p.chain, where);
    const std::vector<TaskId> ids = emitter->emit(p.forward_steps, input);
    graph.add_memory(ids.front(), base.device, kActivations, MemoryWhen::AtStart,
                     p.chain.input_size + p.chain.delta(p.chain.length()));
    open_[key] = std::move(emitter);
    return ids.back();
  }
  auto it = open_.find(key);
  if (it == open_.end()) throw std::logic_error("memory saving: backward before its forward");
  SequenceEmitter& emitter = *it->second;
  emitter.emit(p.backward_steps, input);
  const TaskId last = emitter.last_gpu_task();
  graph.add_memory(last, base.device, kActivations, MemoryWhen::AtFinish,
                   -(p.chain.input_size + p.chain.input_gradient_size));
  emitter.release_host_copies(last);
  open_.erase(it);
  return last;
}

}  // namespace pipesim::memory_saving
