#include "studies/plan/plan_report.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "reports/csv_field.hpp"
#include "reports/json_writer.hpp"
#include "reports/text_table.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

double value(const PlanEntry& e, const std::string& column) {
  return e.run ? run_number(*e.run, column) : std::numeric_limits<double>::quiet_NaN();
}

std::string fixed_or_dash(double v, int decimals) { return v == v ? fmt::fixed(v, decimals) : "-"; }

std::string percent_or_dash(double v) { return v == v ? fmt::percent(v) : "-"; }

std::string time_or_dash(double v) { return v == v ? fmt::time(v) : "-"; }

std::string change(double x, double base) {
  const double r = x / base - 1;
  return (r >= 0 ? "+" : "") + fmt::fixed(r * 100, 1) + " %";
}

// How the report speaks of its objective.
struct Wording {
  const char* pruned;            // the fate Slower: "slower by their time bound"
  const char* screened;          // --screen-only's table: "fastest by their time bound"
  const char* ranked;            // the ranked table's title
  const char* worse;             // a family's best that is not the winner: "slower at its best"
  const char* bound;             // "time bound"
  const char* than;              // "no faster than"
  const char* kth;               // "slowest"
  std::string (*shown)(double);  // a value or a bound
};

std::string gpu_time(double seconds) { return fmt::time(seconds) + " GPU"; }

Wording wording(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::Time:
      return {"slower by their time bound",
              "fastest by their time bound",
              "fastest",
              "slower at its best",
              "time bound",
              "no faster than",
              "slowest",
              fmt::time};
    case PlanObjective::Cost:
      return {"costlier by their cost bound",
              "cheapest by their cost bound (GPU time per iteration)",
              "cheapest (GPU time per iteration: iteration time x GPUs, then iteration time)",
              "costlier at its best",
              "cost bound",
              "no cheaper than",
              "costliest",
              gpu_time};
    case PlanObjective::Memory:
      break;
  }
  return {"larger by their memory bound",
          "smallest by their memory bound",
          "smallest (peak memory per GPU, then iteration time)",
          "larger at its best",
          "memory bound",
          "no smaller than",
          "largest",
          fmt::bytes};
}

}  // namespace

std::string plan_csv(const std::vector<PlanEntry>& entries, PlanObjective objective) {
  std::vector<std::size_t> rank(entries.size(), 0);
  std::vector<bool> front(entries.size(), false);
  const std::vector<std::size_t> ranked = plan_ranking(entries, objective);
  for (std::size_t r = 0; r < ranked.size(); ++r) rank[ranked[r]] = r + 1;
  for (const std::size_t i : plan_front(entries)) front[i] = true;
  std::ostringstream out;
  out << "id,tp,pp,dp,gpus,zero,microbatch_size,microbatches,schedule,virtual_stages,k,recompute,partition,"
         "layers,memory_saving,fate,reason,time_bound,memory_bound,memory_capacity,status,iteration_time,gpu_seconds,"
         "training.tokens_per_second,training.mfu,max_peak_memory,max_peak_largest_part,worst_bubble_fraction,"
         "exposed_communication,rank,front\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const PlanEntry& e = entries[i];
    const PlanCandidate& c = e.candidate;
    const bool bounded = e.fate != PlanFate::NotApplicable;
    const auto metric = [&](const char* column) { return e.run ? run_metric(*e.run, column) : std::string(); };
    const double time = e.run ? run_number(*e.run, "iteration_time") : std::numeric_limits<double>::quiet_NaN();
    out << i << ',' << c.tp << ',' << c.pp << ',' << c.dp << ',' << c.ranks() << ',' << c.zero << ','
        << c.microbatch_size << ',' << c.microbatches << ',' << c.schedule << ',' << c.virtual_stages << ',' << c.k
        << ',' << c.recompute << ',' << c.partition << ',' << c.counts_label() << ',' << csv_field(c.saving_label())
        << ',' << csv_field(fate_name(e.fate)) << ',' << csv_field(e.reason) << ','
        << (bounded ? json_number(e.bounds.time) : "") << ','
        << (bounded && !e.deferred ? json_number(e.bounds.memory) : "") << ','
        << (bounded ? json_number(e.bounds.capacity) : "") << ',' << (e.run ? csv_field(e.run->status) : "") << ','
        << metric("iteration_time") << ',' << (time == time ? json_number(time * c.ranks()) : "") << ','
        << metric("training.tokens_per_second") << ',' << metric("training.mfu") << ',' << metric("max_peak_memory")
        << ',' << metric("max_peak_largest_part") << ',' << metric("worst_bubble_fraction") << ','
        << metric("exposed_communication") << ',' << (rank[i] ? std::to_string(rank[i]) : "") << ','
        << (front[i] ? "yes" : "") << '\n';
  }
  return out.str();
}

std::string smallest_memory_line(const std::vector<PlanEntry>& entries) {
  const PlanEntry* best = nullptr;
  for (const PlanEntry& e : entries)
    if (e.fate != PlanFate::NotApplicable && !e.deferred && (!best || e.bounds.memory < best->bounds.memory)) best = &e;
  if (!best) return "no candidate could be built (plan.csv says why for each)";
  return "the smallest memory bound is " + fmt::bytes(best->bounds.memory) + " (" + best->candidate.label() +
         ") against " + fmt::bytes(best->bounds.capacity);
}

void write_plan_summary(std::ostream& os, const std::vector<PlanEntry>& entries, std::size_t top,
                        PlanObjective objective) {
  const Wording say = wording(objective);
  const bool by_cost = objective == PlanObjective::Cost;
  std::map<PlanFate, std::size_t> count;
  std::size_t valid = 0;
  for (const PlanEntry& e : entries) ++count[e.fate], valid += e.valid();
  os << "candidates  " << entries.size() << ": " << count[PlanFate::Simulated] << " simulated (" << valid << " fit), "
     << count[PlanFate::Slower] << " " << say.pruned << ", "
     << (count[PlanFate::Screened] ? std::to_string(count[PlanFate::Screened]) + " screened, " : "")
     << count[PlanFate::OverMemory] << " over memory by their bound, " << count[PlanFate::NotApplicable]
     << " not applicable"
     << (count[PlanFate::SameStages] ? ", " + std::to_string(count[PlanFate::SameStages]) + " with their twin's stages"
                                     : "")
     << "\n";
  if (count[PlanFate::Screened] > 0) {  // --screen-only: the bounds alone
    std::vector<const PlanEntry*> fits;
    for (const PlanEntry& e : entries)
      if (e.fate == PlanFate::Screened) fits.push_back(&e);
    std::stable_sort(fits.begin(), fits.end(), [&](const PlanEntry* a, const PlanEntry* b) {
      return objective_bound(*a, objective) < objective_bound(*b, objective);
    });
    os << "\n" << say.screened << " (nothing simulated)\n";
    std::vector<Row> rows = {
        {"tp", "pp", "dp", "micro-batches", "schedule", "recompute", "zero", "time bound", "memory bound"}};
    if (by_cost) rows[0].push_back("cost bound");
    for (std::size_t r = 0; r < fits.size() && r < top; ++r) {
      const PlanCandidate& c = fits[r]->candidate;
      rows.push_back({std::to_string(c.tp), std::to_string(c.pp), std::to_string(c.dp),
                      std::to_string(c.microbatch_size) + " x " + std::to_string(c.microbatches), c.stages_label(),
                      c.memory_label(), std::to_string(c.zero), fmt::time(fits[r]->bounds.time),
                      fits[r]->deferred ? "-" : fmt::bytes(fits[r]->bounds.memory)});
      if (by_cost) rows.back().push_back(gpu_time(objective_bound(*fits[r], objective)));
    }
    write_table(os, rows);
    return;
  }
  const std::vector<std::size_t> ranked = plan_ranking(entries, objective);
  if (ranked.empty()) {
    os << "nothing fits: " << smallest_memory_line(entries) << "\n";
    return;
  }
  const double best = objective_value(entries[ranked.front()], objective);
  std::vector<std::size_t> rank_of(entries.size(), 0);  // 1-based; 0: no valid run
  for (std::size_t r = 0; r < ranked.size(); ++r) rank_of[ranked[r]] = r + 1;
  std::vector<Row> rows = {{"rank", "tp", "pp", "dp", "micro-batches", "schedule", "recompute", "zero", "iteration",
                            "tokens/s", "MFU", "peak memory", "bubble", "exposed comm"}};
  if (by_cost) rows[0].insert(rows[0].begin() + 9, "GPU time");
  for (std::size_t r = 0; r < ranked.size() && r < top; ++r) {
    const PlanEntry& e = entries[ranked[r]];
    const PlanCandidate& c = e.candidate;
    rows.push_back({std::to_string(r + 1), std::to_string(c.tp), std::to_string(c.pp), std::to_string(c.dp),
                    std::to_string(c.microbatch_size) + " x " + std::to_string(c.microbatches), c.stages_label(),
                    c.memory_label(), std::to_string(c.zero), fmt::time(e.iteration_time()),
                    fixed_or_dash(value(e, "training.tokens_per_second"), 0), percent_or_dash(value(e, "training.mfu")),
                    fmt::bytes(value(e, "max_peak_memory")) + " " + run_metric(*e.run, "max_peak_largest_part"),
                    percent_or_dash(value(e, "worst_bubble_fraction")),
                    time_or_dash(value(e, "exposed_communication"))});
    if (by_cost) rows.back().insert(rows.back().begin() + 9, gpu_time(objective_value(e, objective)));
  }
  os << "\n" << say.ranked << "\n";
  write_table(os, rows);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const PlanEntry& e = entries[i];
    if (!e.given) continue;
    os << "\nthe workload's own configuration: " << e.candidate.label() << "\n  ";
    if (const std::size_t r = rank_of[i]) {
      // Past the K-th run, candidates left unsimulated may be faster than it: its rank is then a lower bound.
      const double v = objective_value(e, objective);
      os << "rank " << r << (r <= top ? "" : " or worse") << ", " << say.shown(v) << " ("
         << (r == 1 ? "the winner" : change(v, best) + " against the winner") << ")\n";
    } else if (e.fate == PlanFate::NotApplicable)
      os << "not applicable: " << e.reason << "\n";
    else if (e.fate == PlanFate::OverMemory)
      os << "over memory: its bound is " << fmt::bytes(e.bounds.memory) << " > " << fmt::bytes(e.bounds.capacity)
         << "\n";
    else
      os << "simulated: " << (e.run ? e.run->status + (e.run->error.empty() ? "" : ": " + e.run->error) : "") << "\n";
  }
  os << "\nfront (no other run is both faster and smaller)\n";
  std::vector<Row> front = {{"rank", "iteration", "peak memory", "configuration"}};
  for (const std::size_t i : plan_front(entries)) {
    front.push_back({std::to_string(rank_of[i]), fmt::time(entries[i].iteration_time()),
                     fmt::bytes(value(entries[i], "max_peak_memory")), entries[i].candidate.label()});
  }
  write_table(os, front, true);

  // Each family (schedule with its virtual stages): its best run, or why it has none.
  os << "\nschedules\n";
  std::vector<Row> families = {{"schedule", "best", "against the winner", "why"}};
  std::vector<std::string> order;
  std::map<std::string, std::vector<const PlanEntry*>> of;
  for (const PlanEntry& e : entries) {
    const std::string name = e.candidate.schedule_label();
    if (!of.count(name)) order.push_back(name);
    of[name].push_back(&e);
  }
  for (const std::string& name : order) {
    const std::vector<const PlanEntry*>& members = of[name];
    const PlanEntry* fastest = nullptr;  // the family's best ranked run
    const PlanEntry* bound = nullptr;
    std::size_t r = 0, over = 0, invalid = 0;
    for (const PlanEntry* e : members) {
      const std::size_t rank = rank_of[static_cast<std::size_t>(e - entries.data())];
      if (rank && (!r || rank < r)) r = rank, fastest = e;
      if (e->fate == PlanFate::Slower &&
          (!bound || objective_bound(*e, objective) < objective_bound(*bound, objective)))
        bound = e;
      over += e->fate == PlanFate::OverMemory;
      invalid += e->fate == PlanFate::Simulated && !e->valid();
    }
    if (fastest) {
      const double v = objective_value(*fastest, objective);
      families.push_back({name, "rank " + std::to_string(r) + ", " + say.shown(v),
                          r == 1 ? "the winner" : change(v, best), r == 1 ? "" : say.worse});
    } else if (bound) {
      const double b = objective_bound(*bound, objective);
      families.push_back({name, "not simulated", ">= " + change(b, best),
                          std::string("its best ") + say.bound + ", " + say.shown(b) + ", is " + say.than +
                              " the top " + std::to_string(top) + "'s " + say.kth + " run"});
    } else if (over + invalid > 0) {
      double smallest = std::numeric_limits<double>::infinity(), capacity = 0;
      for (const PlanEntry* e : members)
        if (e->fate != PlanFate::NotApplicable && !e->deferred && e->bounds.memory < smallest)
          smallest = e->bounds.memory, capacity = e->bounds.capacity;
      families.push_back(
          {name, "none fits", "-",
           over ? "over memory: its smallest bound is " + fmt::bytes(smallest) + " > " + fmt::bytes(capacity)
                : "over memory when simulated"});
    } else {
      families.push_back({name, "not applicable", "-", "e.g. " + members.front()->reason});
    }
  }
  write_table(os, families, true);
}

}  // namespace pipesim
