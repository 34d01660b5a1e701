#include "studies/plan/plan_search.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "schedules/registry.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_saving_summary.hpp"
#include "studies/forked_run.hpp"
#include "studies/plan/plan_partition.hpp"
#include "workloads/costs.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double peak_memory(const PlanEntry& e) { return run_number(*e.run, "max_peak_memory"); }

}  // namespace

const char* fate_name(PlanFate fate) {
  switch (fate) {
    case PlanFate::NotApplicable:
      return "not applicable";
    case PlanFate::OverMemory:
      return "over memory";
    case PlanFate::Screened:
      return "screened";
    case PlanFate::Slower:
      return "slower";
    case PlanFate::Simulated:
      return "simulated";
    case PlanFate::SameStages:
      return "same stages";
  }
  return "";
}

std::string run_metric(const RunRecord& record, const std::string& column) {
  const std::vector<std::string>& columns = sweep_metric_columns();
  const auto it = std::find(columns.begin(), columns.end(), column);
  const std::size_t i = static_cast<std::size_t>(it - columns.begin());
  return i < record.metrics.size() ? record.metrics[i] : "";
}

double run_number(const RunRecord& record, const std::string& column) {
  const std::string text = run_metric(record, column);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' ? v : std::numeric_limits<double>::quiet_NaN();
}

double PlanEntry::iteration_time() const { return valid() ? run_number(*run, "iteration_time") : kInfinity; }

double objective_value(const PlanEntry& e, PlanObjective objective) {
  switch (objective) {
    case PlanObjective::Time:
      return e.iteration_time();
    case PlanObjective::Cost:
      return e.iteration_time() * e.candidate.ranks();
    case PlanObjective::Memory:
      break;
  }
  return e.valid() ? peak_memory(e) : kInfinity;
}

double objective_bound(const PlanEntry& e, PlanObjective objective) {
  switch (objective) {
    case PlanObjective::Time:
      return e.bounds.time;
    case PlanObjective::Cost:
      return e.bounds.time * e.candidate.ranks();
    case PlanObjective::Memory:
      break;
  }
  return e.bounds.memory;
}

struct PlanScreenCache {
  WorkloadLoader load;
  // The layers' timing depends only on TP, micro-batch size and recompute: timed once per triple.
  std::map<std::tuple<int, int, std::string>, Workload> timed;
  PlanLayouts layouts;
};

namespace {

// A fit twin's pipeline: from its plain pipeline's bounds B (the balanced
// one, or the even one that has its stages) and workload W, the
// layer counts whose stages fit by the stages' memory model, calibrated
// again on each new pipeline's bounds until its own bound fits (at most
// four pipelines, no split twice). Throws InfeasibleRun where the model
// finds no split that fits, or none but the balanced one.
PlanBounds fit_bounds(const PlanCandidate& fit, Workload w, PlanBounds b, const Platform& platform,
                      const std::function<Workload(const PlanCandidate&)>& timed_workload, PlanLayouts& layouts) {
  std::set<std::vector<int>> tried = {stage_layer_counts(b)};
  for (int round = 0; round < 4 && b.memory > b.capacity; ++round) {
    const std::optional<std::vector<int>> counts = fit_layer_counts(
        w, reference_speed(w, platform), rank_memory_models(w, b), b.stage_rank, stage_layer_counts(b));
    if (!counts && round == 0)
      throw InfeasibleRun("no split of the layers fits every stage's memory (by the stages' memory model)");
    if (!counts || !tried.insert(*counts).second) break;
    PlanCandidate c = fit;
    c.layer_counts = *counts;
    w = timed_workload(c);
    b = plan_bounds(w, platform, &layouts);
  }
  if (tried.size() == 1) throw InfeasibleRun("the stages' memory model finds no split but the balanced one");
  return b;
}

PlanScreenCache& screen_cache(const PlanScreen& s) {
  if (!s.cache) s.cache = std::make_shared<PlanScreenCache>(PlanScreenCache{workload_loader(s.workload), {}, {}});
  return *s.cache;
}

// Whether the workload's own optimizer section shards its state
// (optimizer.distributed) whatever parallel.zero says: its ZeRO 0
// candidates are then not their ZeRO 1 twins' pipelines scaled.
bool declares_distributed_optimizer(const PlanScreen& s) {
  try {
    return screen_cache(s).load({{"parallel.zero", "0"}}).optimizer.distributed;
  } catch (const InputError&) {
    return true;  // each candidate says why on its own
  }
}

// Screens entries IDS[first], IDS[first + step], ...: bounds, or why a
// candidate is not applicable; DONE hears how many so far.
void screen_some(const PlanScreen& s, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids,
                 std::size_t first, std::size_t step, const std::function<void(std::size_t)>& done) {
  const WorkloadLoader& load = screen_cache(s).load;
  auto& timed = s.cache->timed;
  std::size_t count = 0;
  for (std::size_t k = first; k < ids.size(); k += step) {
    PlanEntry& e = entries[ids[k]];
    try {
      const auto timed_workload = [&](const PlanCandidate& c) {
        const Workload loaded = load(c.overrides());
        const auto key = std::make_tuple(c.tp, c.microbatch_size, c.recompute);
        auto found = timed.find(key);
        if (found == timed.end()) found = timed.emplace(key, time_model_layers(loaded, *s.platform)).first;
        return with_timing_of(loaded, found->second);
      };
      const Workload w = timed_workload(e.candidate);
      if (e.candidate.partition == "fit" && e.candidate.layer_counts.empty())  // from its plain candidate's bounds
        e.bounds = fit_bounds(e.candidate, w,
                              e.bounds.ranks.empty() ? plan_bounds(w, *s.platform, &s.cache->layouts) : e.bounds,
                              *s.platform, timed_workload, s.cache->layouts);
      else if (e.sharded_twin < entries.size() || e.unsharded_twin < entries.size()) {
        PlanEntry* sharded = e.sharded_twin < entries.size() ? &entries[e.sharded_twin] : nullptr;
        PlanEntry* whole = e.unsharded_twin < entries.size() ? &entries[e.unsharded_twin] : nullptr;
        e.bounds = plan_bounds(w, *s.platform, &s.cache->layouts, sharded ? &sharded->bounds : nullptr,
                               whole ? &whole->bounds : nullptr);
        for (PlanEntry* twin : {sharded, whole})
          if (twin)
            twin->fate = twin->bounds.memory > twin->bounds.capacity ? PlanFate::OverMemory : PlanFate::Screened;
      } else
        e.bounds = plan_bounds(w, *s.platform, &s.cache->layouts);
      e.fate = e.bounds.memory > e.bounds.capacity ? PlanFate::OverMemory : PlanFate::Screened;
    } catch (const InputError& error) {
      e.fate = PlanFate::NotApplicable;
      e.reason = error.what();
    } catch (const InfeasibleRun& infeasible) {
      // A stage's program cannot fit its memory at all: no run. The bounds
      // stay its plain twin's (copied), what the pipeline needs unsaved.
      e.fate = PlanFate::OverMemory;
      e.reason = infeasible.what();
    }
    if (done) done(++count);
  }
}

// What a screening process sends back: per entry its fate, bounds (exact,
// in hexadecimal), reason and stages.
void write_screened(std::string& text, const PlanEntry& e) {
  char line[256];
  std::snprintf(line, sizeof line, "%d %a %d %a %a %zu %zu %zu %zu\n", static_cast<int>(e.fate), e.bounds.memory,
                e.bounds.memory_rank, e.bounds.capacity, e.bounds.time, e.reason.size(), e.bounds.stages.size(),
                e.bounds.balanced_stages.size(), e.bounds.over_capacity.size());
  text += line + e.reason + e.bounds.stages + e.bounds.balanced_stages + e.bounds.over_capacity;
  text += std::to_string(e.bounds.ranks.size());
  for (const PlanBounds::Rank& r : e.bounds.ranks) {
    std::snprintf(line, sizeof line, " %a %a %a %a", r.static_bytes, r.memory, r.capacity, r.speed);
    text += line;
  }
  text += " " + std::to_string(e.bounds.stage_rank.size());
  for (const int r : e.bounds.stage_rank) text += " " + std::to_string(r);
  text += '\n';
}

std::string screened_text(const std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids, std::size_t first,
                          std::size_t step) {
  std::string text;
  for (std::size_t k = first; k < ids.size(); k += step) {
    const PlanEntry& e = entries[ids[k]];
    write_screened(text, e);
    if (e.sharded_twin < entries.size()) write_screened(text, entries[e.sharded_twin]);
    if (e.unsharded_twin < entries.size()) write_screened(text, entries[e.unsharded_twin]);
  }
  return text;
}

const char* read_screened(const char* at, PlanEntry& e) {
  char* end = nullptr;
  e.fate = static_cast<PlanFate>(std::strtol(at, &end, 10));
  e.bounds.memory = std::strtod(end, &end);
  e.bounds.memory_rank = static_cast<int>(std::strtol(end, &end, 10));
  e.bounds.capacity = std::strtod(end, &end);
  e.bounds.time = std::strtod(end, &end);
  const std::size_t reason = std::strtoull(end, &end, 10), stages = std::strtoull(end, &end, 10),
                    balanced = std::strtoull(end, &end, 10), over = std::strtoull(end, &end, 10);
  at = end + 1;  // after the newline
  e.reason.assign(at, reason);
  e.bounds.stages.assign(at + reason, stages);
  e.bounds.balanced_stages.assign(at + reason + stages, balanced);
  e.bounds.over_capacity.assign(at + reason + stages + balanced, over);
  at += reason + stages + balanced + over;
  e.bounds.ranks.resize(std::strtoull(at, &end, 10));
  for (PlanBounds::Rank& r : e.bounds.ranks) {
    r.static_bytes = std::strtod(end, &end), r.memory = std::strtod(end, &end);
    r.capacity = std::strtod(end, &end), r.speed = std::strtod(end, &end);
  }
  e.bounds.stage_rank.resize(std::strtoull(end, &end, 10));
  for (int& r : e.bounds.stage_rank) r = static_cast<int>(std::strtol(end, &end, 10));
  return end + 1;  // after the newline
}

void read_screened(const std::string& text, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids,
                   std::size_t first, std::size_t step) {
  const char* at = text.c_str();
  for (std::size_t k = first; k < ids.size(); k += step) {
    PlanEntry& e = entries[ids[k]];
    at = read_screened(at, e);
    if (e.sharded_twin < entries.size()) at = read_screened(at, entries[e.sharded_twin]);
    if (e.unsharded_twin < entries.size()) at = read_screened(at, entries[e.unsharded_twin]);
  }
}

// Screens the entries IDS, in -j forked processes where they are many: one
// per share, every parts-th candidate (neighbours cost alike, so the shares
// do too). Candidates are independent, so the entries are those of one
// process, bit for bit. The first share tells the progress, scaled to the
// whole, after DONE_BEFORE of TOTAL.
void screen_ids(const PlanScreen& s, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids,
                const PlanProgress& progress, std::size_t done_before, std::size_t total) {
  const std::size_t n = ids.size();
  const std::size_t parts = std::min<std::size_t>(std::max(1, s.jobs), n / 64 + 1);  // a process for 64 at least
  if (parts <= 1) {
    screen_some(s, entries, ids, 0, 1, [&](std::size_t done) {
      if (progress) progress(done_before + done, total);
    });
    return;
  }
  std::vector<std::function<std::string()>> shares;
  for (std::size_t k = 0; k < parts; ++k)
    shares.push_back([&, k] {
      screen_some(s, entries, ids, k, parts, [&](std::size_t done) {
        if (progress && k == 0 && done * parts < n) progress(done_before + done * parts, total);
      });
      return screened_text(entries, ids, k, parts);
    });
  const std::vector<std::string> screened = run_forked_all(shares);
  for (std::size_t k = 0; k < parts; ++k) read_screened(screened[k], entries, ids, k, parts);
  if (progress) progress(done_before + n, total);
}

// Whether candidate C's pipeline is the same whatever its devices' memory:
// the fixed orders (not the ILP, PipeDream or kFkB's memory-aware choices),
// no seed 002 program, no fit partition. Its ZeRO 2 twin is then the same
// pipeline with the gradients sharded.
bool gradients_shard_alone(const PlanCandidate& c) {
  static const std::set<std::string> fixed = {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1",
                                              "zb-h2", "zbv",  "dualpipev"};
  return c.saving.empty() && c.partition != "fit" && fixed.count(c.schedule) > 0;
}

// Screens the entries IDS as screen_ids, where a ZeRO 2 or ZeRO 0
// candidate of a schedule whose pipeline ignores memory is bounded with its
// ZeRO 1 twin among them: the same pipeline, its memory replayed with the
// gradients sharded, or with the optimizer whole (plan_bounds'
// SHARDED_GRADIENTS and WHOLE_OPTIMIZER, the latter where WHOLE_TWINS).
void screen_with_zero_twins(const PlanScreen& s, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids,
                            bool whole_twins, const PlanProgress& progress, std::size_t done_before,
                            std::size_t total) {
  std::map<std::string, std::size_t> zero1;
  for (const std::size_t i : ids)
    if (entries[i].candidate.zero == 1) zero1.emplace(entries[i].candidate.label(), i);
  std::vector<std::size_t> unshared;
  for (const std::size_t i : ids) {
    PlanCandidate c = entries[i].candidate;
    const int zero = c.zero;
    c.zero = 1;
    const bool twin = !entries[i].given && gradients_shard_alone(c) &&
                      (zero == 2 || (zero == 0 && whole_twins && bounds_whole_optimizer(c.dp)));
    const auto found = twin ? zero1.find(c.label()) : zero1.end();
    if (found == zero1.end())
      unshared.push_back(i);
    else
      (zero == 2 ? entries[found->second].sharded_twin : entries[found->second].unsharded_twin) = i;
  }
  screen_ids(s, entries, unshared, progress, done_before, total);
  // A ZeRO 1 candidate refused: its twins are screened alone, for their own reasons.
  std::vector<std::size_t> alone;
  for (const std::size_t i : unshared)
    if (entries[i].fate == PlanFate::NotApplicable)
      for (const std::size_t t : {entries[i].sharded_twin, entries[i].unsharded_twin})
        if (t < entries.size()) alone.push_back(t);
  for (const std::size_t t : alone) {
    PlanEntry fresh;
    fresh.candidate = entries[t].candidate;
    entries[t] = fresh;
  }
  screen_ids(s, entries, alone, progress, done_before + unshared.size(), total);
}

// Of an even and a balanced twin with the same stages, one is weighed: the
// even one, or the workload's own configuration. The other is SameStages,
// with the same bounds (the same pipeline), so that no run is made twice.
void mark_same_stages(PlanEntry& even, PlanEntry& balanced) {
  PlanEntry& kept = balanced.given ? balanced : even;
  PlanEntry& dropped = balanced.given ? even : balanced;
  dropped.bounds = kept.bounds;
  dropped.fate = PlanFate::SameStages;
  dropped.reason = std::string("its stages (layers ") + kept.bounds.stages + ") are those of its " +
                   (balanced.given ? "balanced" : "even") + " twin";
}

// Appends a fit twin for each plain balanced pipeline over memory whose
// static memory fits (or the even one, where the balanced one has its
// stages or is not tried); returns their indices.
std::vector<std::size_t> add_fit_twins(std::vector<PlanEntry>& entries) {
  std::map<std::string, PlanFate> balanced;  // the balanced candidates' fates, by the label of their fit twin
  const auto fit_of = [](PlanCandidate c) {
    c.partition = "fit";
    return c;
  };
  for (const PlanEntry& e : entries)
    if (e.candidate.partition == "balanced") balanced.emplace(fit_of(e.candidate).label(), e.fate);
  std::set<std::string> made;
  std::vector<std::size_t> ids;
  for (std::size_t i = 0, plain = entries.size(); i < plain; ++i) {
    const PlanEntry& e = entries[i];
    if (e.fate != PlanFate::OverMemory || !e.candidate.saving.empty() || e.bounds.over_capacity.empty() ||
        e.candidate.pp == 1 || e.candidate.schedule == "ilp" ||  // the ILP places the layers itself
        (e.candidate.partition != "even" && e.candidate.partition != "balanced"))
      continue;
    PlanEntry fit;
    fit.candidate = fit_of(e.candidate);
    const std::string label = fit.candidate.label();
    if (const auto b = balanced.find(label);
        e.candidate.partition == "even" && b != balanced.end() && b->second != PlanFate::SameStages)
      continue;  // its balanced twin decides: it fits, is not applicable, or makes the fit twin
    if (!made.insert(label).second) continue;
    fit.bounds = e.bounds;
    entries.push_back(fit);
    ids.push_back(entries.size() - 1);
  }
  return ids;
}

}  // namespace

std::vector<PlanEntry> screen_plan(const PlanScreen& s, const PlanProgress& progress) {
  std::vector<PlanCandidate> space = plan_space(s.limits);
  std::size_t given = space.size();
  if (s.given) {
    given = static_cast<std::size_t>(std::find(space.begin(), space.end(), *s.given) - space.begin());
    if (given == space.size()) space.push_back(*s.given);
  }
  std::vector<PlanEntry> entries(space.size());
  std::map<std::string, std::size_t> even;  // the even candidates by their label
  for (std::size_t i = 0; i < space.size(); ++i) {
    entries[i].candidate = space[i];
    entries[i].given = i == given;
    if (space[i].partition == "even") even.emplace(space[i].label(), i);
  }
  // A balanced candidate is screened after its even twin, whose bounds name
  // the stages the balanced partition would give the same pipeline: where
  // those are the even ones, the two are one pipeline, bounded once.
  std::vector<std::size_t> first, later, twin(entries.size(), entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    PlanCandidate c = entries[i].candidate;
    if (c.partition == "balanced") {
      c.partition = "even";
      if (const auto found = even.find(c.label()); found != even.end()) {
        twin[i] = found->second;
        later.push_back(i);
        continue;
      }
    }
    first.push_back(i);
  }
  const bool whole_twins = !declares_distributed_optimizer(s);
  screen_with_zero_twins(s, entries, first, whole_twins, progress, 0, entries.size());
  std::vector<std::size_t> second;
  for (const std::size_t i : later) {
    PlanEntry& t = entries[twin[i]];
    if (!entries[i].given && t.fate != PlanFate::NotApplicable && t.bounds.balanced_stages == t.bounds.stages)
      mark_same_stages(t, entries[i]);
    else
      second.push_back(i);
  }
  screen_with_zero_twins(s, entries, second, whole_twins, progress, first.size(), first.size() + second.size());
  for (const std::size_t i : second)  // the workload's own balanced candidate may be its twin's pipeline too
    if (entries[i].fate != PlanFate::NotApplicable && entries[twin[i]].fate != PlanFate::NotApplicable &&
        entries[i].bounds.stages == entries[twin[i]].bounds.stages)
      mark_same_stages(entries[twin[i]], entries[i]);
  // A pipeline over memory whose schedule runs seed 002's programs gets a
  // twin that saves memory (remat, or both) on the stages over capacity, and only there:
  // each stage saves what it must (docs/plan.md#memory-saving).
  std::vector<std::size_t> third;
  for (std::size_t i = 0, plain = entries.size(); i < plain; ++i) {
    if (!s.memory_saving || entries[i].fate != PlanFate::OverMemory || !entries[i].candidate.saving.empty() ||
        !runs_memory_saving(entries[i].candidate.schedule) || entries[i].bounds.over_capacity.empty())
      continue;  // nothing to save, or a static memory alone over capacity
    std::vector<int> over;
    std::istringstream ranks(entries[i].bounds.over_capacity);
    for (int r; ranks >> r;) over.push_back(r);
    PlanEntry saving;
    saving.candidate = entries[i].candidate;
    saving.candidate.saving = saving_on(over, saving.candidate.pp, s.saving_policy);
    saving.bounds = entries[i].bounds;
    if (s.defer_memory_saving) {
      saving.deferred = true;
      saving.fate = PlanFate::Screened;
      saving.reason = "not built: its time bound is its plain candidate's";
    }
    entries.push_back(saving);
    if (!saving.deferred) third.push_back(entries.size() - 1);
  }
  const std::size_t before = first.size() + second.size();
  screen_ids(s, entries, third, progress, before, before + third.size());
  // A pipeline over memory whose static memory fits gets a twin with the
  // fit partition: as fast as its stages allow while each fits.
  if (std::find(s.limits.partitions.begin(), s.limits.partitions.end(), "fit") != s.limits.partitions.end()) {
    std::vector<std::size_t> fourth = add_fit_twins(entries);
    screen_ids(s, entries, fourth, progress, before + third.size(), before + third.size() + fourth.size());
    for (const std::size_t i : fourth)
      if (entries[i].reason.empty() && entries[i].fate != PlanFate::NotApplicable)
        entries[i].candidate.layer_counts = stage_layer_counts(entries[i].bounds);
  }
  return entries;
}

void screen_deferred(const PlanScreen& s, std::vector<PlanEntry>& entries, const std::vector<std::size_t>& ids) {
  for (const std::size_t i : ids) entries[i].reason.clear();
  screen_ids(s, entries, ids, nullptr, 0, ids.size());
  for (const std::size_t i : ids) entries[i].deferred = false;
}

void simulate_plan(std::vector<PlanEntry>& entries, std::size_t top, std::size_t batch, const PlanSimulator& simulate,
                   const PlanProgress& progress, PlanObjective objective, const PlanBuilder& build) {
  const auto bound = [&](std::size_t i) { return objective_bound(entries[i], objective); };
  // Best bound first, ties in candidate order; a deferred twin, once built, goes back in by its own bound.
  std::set<std::pair<double, std::size_t>> order;
  std::vector<std::size_t> given;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].fate == PlanFate::Screened) {
      if (entries[i].given)
        given.push_back(i);
      else
        order.emplace(bound(i), i);
    }
  std::vector<double> best;  // the valid runs' values, sorted
  const auto kth = [&] { return best.size() >= top ? best[top - 1] : kInfinity; };
  const auto add = [&](PlanEntry& e) {
    e.fate = PlanFate::Simulated;
    const double v = objective_value(e, objective);
    if (e.valid()) best.insert(std::upper_bound(best.begin(), best.end(), v), v);
  };
  std::size_t derived = 0;
  std::vector<std::size_t> sharded_of(entries.size(), entries.size());  // a ZeRO 2 twin's ZeRO 1 candidate
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].sharded_twin < entries.size()) sharded_of[entries[i].sharded_twin] = i;
  const auto record = [&](const std::vector<std::size_t>& chosen) {
    const std::vector<RunRecord> records = simulate(chosen);
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      PlanEntry& e = entries[chosen[k]];
      e.run = records.at(k);
      add(e);
      // A ZeRO 2 twin whose run SIMULATE derived from this one's report.
      if (e.sharded_twin >= entries.size()) continue;
      PlanEntry& twin = entries[e.sharded_twin];
      if (twin.fate != PlanFate::Screened || !twin.run) continue;
      order.erase({bound(e.sharded_twin), e.sharded_twin});
      add(twin);
      ++derived;
    }
  };
  if (!given.empty()) record(given);
  std::size_t done = given.size() + derived;
  // A deferred twin waits while plain candidates within reach remain: their
  // runs tighten the K-th time, which may leave the twin out unbuilt (a
  // build solves its programs). Then the waiting twins go back in by their
  // bound, and those still within reach are built.
  std::vector<std::size_t> postponed;
  for (bool draining = false;; draining = false) {
    std::vector<std::size_t> chosen, unbuilt, held;
    for (;;) {
      while (!order.empty() && chosen.size() + unbuilt.size() < std::max<std::size_t>(1, batch) &&
             order.begin()->first < kth()) {
        const std::size_t i = order.begin()->second;
        order.erase(order.begin());
        if (std::find(chosen.begin(), chosen.end(), sharded_of[i]) != chosen.end())
          held.push_back(i);  // its ZeRO 1 twin's run may give its own: after it
        else
          (!entries[i].deferred ? chosen : draining ? unbuilt : postponed).push_back(i);
      }
      if (!chosen.empty() || !unbuilt.empty() || postponed.empty() || draining) break;
      draining = true;
      for (const std::size_t i : postponed) order.emplace(bound(i), i);
      postponed.clear();
    }
    if (chosen.empty() && unbuilt.empty()) break;  // no candidate left can enter the top K
    if (!unbuilt.empty()) {
      if (!build) throw std::logic_error("plan: a deferred candidate and nothing to build it");
      build(unbuilt);
      for (const std::size_t i : unbuilt)
        if (entries[i].fate == PlanFate::Screened) order.emplace(bound(i), i);
    }
    if (chosen.empty()) continue;
    const std::size_t derived_before = derived;
    record(chosen);
    done += chosen.size() + derived - derived_before;
    for (const std::size_t i : held)
      if (entries[i].fate == PlanFate::Screened) order.emplace(bound(i), i);
    if (progress) {
      std::size_t left = 0;
      for (auto it = order.begin(); it != order.end() && it->first < kth(); ++it) ++left;
      progress(done, left);
    }
  }
  for (PlanEntry& e : entries)
    if (e.fate == PlanFate::Screened) e.fate = PlanFate::Slower;
}

PlanCandidate given_candidate(const Workload& w, int gpus) {
  PlanCandidate c;
  c.tp = w.parallel.tp, c.dp = w.parallel.dp, c.zero = w.parallel.zero;
  if (w.parallel.gpus > 0 && w.parallel.gpus < gpus) c.gpus = gpus = w.parallel.gpus;
  c.pp = w.parallel.pp > 0 ? w.parallel.pp : gpus / (c.tp * c.dp);
  c.microbatch_size = w.microbatch_size, c.microbatches = w.microbatches;
  c.schedule = canonical_schedule_name(w.schedule);
  if (c.schedule == "interleaved-1f1b") {
    const auto v = w.schedule_params.find("virtual_stages");
    c.virtual_stages = v == w.schedule_params.end() ? 2 : std::atoi(v->second.c_str());
  }
  if (c.schedule == "kfkb") {
    const auto k = w.schedule_params.find("k");
    c.k = k == w.schedule_params.end() ? 0 : std::atoi(k->second.c_str());
  }
  if (c.schedule == "ilp") {
    const auto limit = w.schedule_params.find("time_limit");
    if (limit != w.schedule_params.end()) c.time_limit = limit->second;  // else the schedule's default
  }
  c.recompute = w.model ? w.model->recompute : "none";
  if (!w.memory_saving_stages.empty())
    c.saving = w.memory_saving_stages;
  else if (w.memory_saving.policy != "none")
    c.saving.assign(static_cast<std::size_t>(c.pp), w.memory_saving);
  const PartitionRule rule = w.placement.partition;
  if (c.pp > 1 && !w.placement.layer_counts.empty()) {
    c.partition = "layers";
    c.layer_counts = w.placement.layer_counts;
    return c;
  }
  c.partition = c.pp == 1                         ? "even"
                : rule == PartitionRule::Auto     ? auto_partition(c.schedule)
                : rule == PartitionRule::Balanced ? "balanced"
                                                  : "even";
  return c;
}

std::vector<std::size_t> plan_ranking(const std::vector<PlanEntry>& entries, PlanObjective objective) {
  std::vector<std::size_t> ranked;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].valid()) ranked.push_back(i);
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    return std::make_pair(objective_value(entries[a], objective), entries[a].iteration_time()) <
           std::make_pair(objective_value(entries[b], objective), entries[b].iteration_time());
  });
  return ranked;
}

std::vector<std::size_t> plan_front(const std::vector<PlanEntry>& entries) {
  std::vector<std::size_t> front;
  double lowest = kInfinity;
  for (const std::size_t i : plan_ranking(entries))
    if (peak_memory(entries[i]) < lowest) front.push_back(i), lowest = peak_memory(entries[i]);
  return front;
}

}  // namespace pipesim
