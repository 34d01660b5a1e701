#include "cli/validate_command.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "analysis/metrics.hpp"
#include "analysis/run_validation.hpp"
#include "cli/command_line.hpp"
#include "cli/output_files.hpp"
#include "cli/workload_overrides.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "patterns/pattern_yaml.hpp"
#include "reports/violations_report.hpp"
#include "schedules/pytorch/explicit_orders.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {

CLI::App* add_validate_command(CLI::App& root, ValidateOptions& o) {
  CLI::App* validate = add_command(root, "validate",
                                   "Checks SCHEDULE for WORKLOAD on PLATFORM and prints every violation,\n"
                                   "then VALID or INVALID (docs/validate.md).",
                                   "Exit status: 0 valid, 1 invalid, 2 bad input.");
  validate->add_option("PLATFORM.xml", o.platform, "a SimGrid platform")->required();
  validate->add_option("WORKLOAD.yaml", o.workload, "the workload (its schedule is ignored)")->required();
  validate
      ->add_option("SCHEDULE", o.schedule,
                   "a periodic pattern (.yaml, .yml; docs/pattern-format.md)\n"
                   "or per-device orders as a PyTorch pipelining compute CSV (.csv)")
      ->required();
  validate->add_option("--json", o.json, "the verdict and the violations as a JSON object")->type_name("FILE");
  validate
      ->add_option("--memory-policy", o.memory_policy,
                   "how a pattern holds communication buffers: lifetime (default) or seed000\n"
                   "(docs/memory-model.md)")
      ->check(CLI::IsMember({"lifetime", "seed000"}))
      ->type_name("POLICY");
  add_set_option(validate, o.overrides);
  validate->add_option("--cfg", o.simgrid_config, "a SimGrid setting for running CSV orders; repeatable")
      ->type_name("KEY:VALUE")
      ->allow_extra_args(false);
  return validate;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Missing shifts or transfers are completed as `pipesim run` completes them
// (load_pattern): all shifts minimal, and a shift the file gives must be
// that one. Returns the given shifts that differ.
std::vector<Violation> complete_like_run(Pattern& p, const PatternTiming& t, const PatternSource& src) {
  const std::vector<int> succ = p.successors(), transfer = p.transfer_of();
  bool complete = std::all_of(src.op_shift.begin(), src.op_shift.end(), [](bool b) { return b; }) &&
                  std::all_of(src.transfer_shift.begin(), src.transfer_shift.end(), [](bool b) { return b; });
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    complete = complete && !(succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device && transfer[i] < 0);
  if (complete) return {};
  Pattern q = p;
  assign_minimal_shifts(q, t);
  std::vector<Violation> out;
  auto check = [&](bool given, int shift, int computed, const std::string& where, const std::string& who, int device,
                   double start) {
    if (!given || shift == computed) return;
    out.push_back({"shift",
                   where + ": " + who + " is given shift " + std::to_string(shift) + ", but shifts are computed " +
                       "(some shift or transfer is missing) and its smallest valid shift is " +
                       std::to_string(computed) + "; give every shift to choose larger ones",
                   device, start});
  };
  auto at = [](int line, const std::string& list, int item) {
    return (line > 0 ? "line " + std::to_string(line) + ": " : "") + list + "[" + std::to_string(item) + "].shift";
  };
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    check(src.op_shift[i], p.ops[i].shift, q.ops[i].shift, at(src.op_line[i], "tasks", src.op_item[i]),
          op_name(p, static_cast<int>(i)), p.ops[i].device, p.ops[i].start);
  for (std::size_t k = 0; k < p.transfers.size(); ++k)
    check(src.transfer_shift[k], p.transfers[k].shift, q.transfers[k].shift,
          at(src.transfer_line[k], "transfers", src.transfer_item[k]),
          "the transfer after " + op_name(p, p.transfers[k].from), p.ops[p.transfers[k].from].device,
          p.transfers[k].start);
  p = q;
  return out;
}

std::vector<Violation> check_pattern_file(const std::string& path, const Workload& w, const Platform& platform,
                                          BufferPolicy buffers) {
  PatternSource src;
  Pattern p = read_pattern_yaml(path, platform, static_cast<int>(w.layers.size()), &src);
  p.buffers = buffers;
  PatternTiming t;
  try {
    t = pattern_timing(p, w, platform);
  } catch (const std::invalid_argument& e) {
    throw InputError(path, "tasks", e.what());
  }
  std::vector<Violation> out = complete_like_run(p, t, src);
  for (Violation& v : validate_pattern(p, t, platform, w)) out.push_back(std::move(v));
  return out;
}

// Static checks first; the run only if every op is there exactly once
// (its makespan and bubbles in `run` when it completes).
std::vector<Violation> check_orders_file(const std::string& path, const Workload& w, Simulation& simulation,
                                         std::optional<SimulatedRun>& run) {
  const Platform& platform = simulation.platform();
  const ExplicitOrders orders = read_orders_csv(path);
  check_ranks_compute(orders, platform);  // as generate() refuses compute on host memory for `run`
  const auto layers = orders_stage_layers(orders, w, platform);
  const int M = w.microbatches > 0 ? w.microbatches : orders.microbatches();  // 0: left out (schedule csv)
  std::vector<Violation> out = validate_orders(orders, M, platform, w.microbatches <= 0);
  if (std::any_of(out.begin(), out.end(), [](const Violation& v) { return v.kind == "structure"; })) return out;
  const OrdersGraph g = build_orders_graph(orders, layers, w, platform, M);
  const Timeline timeline = simulation.run(g.graph);
  for (Violation& v : run_violations(g.graph, timeline, platform, g.names)) out.push_back(std::move(v));
  if (timeline.completed()) {
    const Metrics metrics = compute_metrics(g.graph, timeline, platform, w.microbatch_size);
    run = SimulatedRun{metrics.makespan, {}};
    for (const DeviceMetrics& d : metrics.devices)
      if (d.tasks > 0) run->bubbles.emplace_back(d.name, d.bubble_fraction);
  }
  return out;
}

}  // namespace

int validate_command(const ValidateOptions& options) {
  const std::vector<WorkloadOverride> overrides = parse_overrides(options.overrides);
  OutputFiles outputs;
  outputs.declare_input("the platform", options.platform);
  outputs.declare_input("the workload", options.workload);
  outputs.declare_input("the schedule", options.schedule);
  if (!options.json.empty()) outputs.declare("--json", options.json);
  const std::string& schedule = options.schedule;
  const bool csv = ends_with(schedule, ".csv");
  if (!csv && !ends_with(schedule, ".yaml") && !ends_with(schedule, ".yml"))
    throw InputError(schedule, "", "expected a pattern (.yaml, .yml) or per-device orders (.csv)");
  BufferPolicy policy = BufferPolicy::Lifetime;
  parse_buffer_policy(options.memory_policy, policy);  // checked by the option
  Simulation simulation(options.platform, options.simgrid_config);
  const Workload workload = time_model_layers(load_workload(options.workload, overrides), simulation.platform());
  std::optional<SimulatedRun> run;
  const std::vector<Violation> violations = csv ? check_orders_file(schedule, workload, simulation, run)
                                                : check_pattern_file(schedule, workload, simulation.platform(), policy);
  if (!options.json.empty())
    outputs.set(options.json,
                [&](std::ostream& text) { write_violations_json(text, violations, simulation.platform(), run); });
  outputs.commit();
  write_violations(std::cout, violations, run);
  return violations.empty() ? 0 : 1;
}

}  // namespace pipesim
