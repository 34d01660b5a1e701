#include "studies/plan/plan_space.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <tuple>
#include <utility>

namespace pipesim {

std::vector<WorkloadOverride> PlanCandidate::overrides() const {
  std::vector<WorkloadOverride> o = {{"parallel.tp", std::to_string(tp)},
                                     {"parallel.pp", std::to_string(pp)},
                                     {"parallel.dp", std::to_string(dp)},
                                     {"parallel.zero", std::to_string(zero)},
                                     {"model.microbatch_size", std::to_string(microbatch_size)},
                                     {"model.recompute", recompute},
                                     {"microbatches", std::to_string(microbatches)},
                                     {"schedule", schedule}};
  if (virtual_stages > 0) o.push_back({"schedule.virtual_stages", std::to_string(virtual_stages)});
  if (k > 0) o.push_back({"schedule.k", std::to_string(k)});
  if (!time_limit.empty()) o.push_back({"schedule.time_limit", time_limit});
  if (layer_counts.empty()) {
    o.push_back({"placement.partition", partition == "fit" ? "balanced" : partition});
  } else {
    o.push_back({"placement.partition", ""});  // the key removed: the counts place the layers
    o.push_back({"placement.layers", counts_flow()});
  }
  o.push_back({"memory_saving", saving_flow()});
  o.push_back({"parallel.gpus", gpus > 0 ? std::to_string(gpus) : ""});  // "": the key removed, every GPU
  return o;
}

std::string PlanCandidate::saving_flow() const {
  if (saving.empty()) return "";  // the key removed: no stage saves memory
  std::string flow;
  for (const MemorySaving& m : saving) {
    flow += flow.empty() ? "[" : ", ";
    flow += "{policy: " + m.policy;
    if (m.policy != "none") {
      char limit[64];
      std::snprintf(limit, sizeof limit, "%.0f", m.limit);
      flow += std::string(", limit: ") +
              (m.fit         ? "fit"
               : m.limit > 0 ? limit
                             : "auto") +
              ", slots: " + std::to_string(m.slots);
    }
    flow += "}";
  }
  return flow + "]";
}

namespace {

// The numbers joined by SEPARATOR: "3, 8, 8, 5".
std::string joined(const std::vector<int>& numbers, const char* separator) {
  std::string text;
  for (const int n : numbers) text += (text.empty() ? "" : separator) + std::to_string(n);
  return text;
}

}  // namespace

std::string PlanCandidate::counts_flow() const { return "[" + joined(layer_counts, ", ") + "]"; }

std::string PlanCandidate::saving_label() const {
  // Stages grouped by policy, in the order their policies first appear.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t s = 0; s < saving.size(); ++s) {
    if (saving[s].policy == "none") continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == saving[s].policy; });
    if (g == groups.end()) g = groups.insert(groups.end(), {saving[s].policy, {}});
    g->second.push_back(s);
  }
  std::string label;
  for (const auto& [policy, stages] : groups) {
    label += (label.empty() ? "" : "; ") + policy + (stages.size() > 1 ? " on stages" : " on stage");
    for (const std::size_t s : stages) label += " " + std::to_string(s);
  }
  return label;
}

std::string PlanCandidate::memory_label() const {
  const std::string saved = saving_label();
  return saved.empty() ? recompute : recompute + " + " + saved;
}

std::vector<MemorySaving> saving_on(const std::vector<int>& stages, int pp, const std::string& policy) {
  std::vector<MemorySaving> saving(static_cast<std::size_t>(pp));
  for (const int s : stages) {
    saving.at(static_cast<std::size_t>(s)).policy = policy;
    saving[static_cast<std::size_t>(s)].fit = true;
  }
  return saving;
}

std::string PlanCandidate::schedule_label() const {
  if (virtual_stages > 0) return schedule + " v" + std::to_string(virtual_stages);
  return k > 0 ? schedule + " k" + std::to_string(k) : schedule;
}

std::string PlanCandidate::counts_label() const { return joined(layer_counts, "/"); }

std::string PlanCandidate::stages_label() const {
  const std::string counts = counts_label();
  return schedule_label() + (pp > 1 ? " " + partition + (counts.empty() ? "" : " " + counts) : "");
}

std::string PlanCandidate::label() const {
  return "tp " + std::to_string(tp) + " pp " + std::to_string(pp) + " dp " + std::to_string(dp) +
         (gpus > 0 ? " on " + std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") : "") + ", mb " +
         std::to_string(microbatch_size) + " x " + std::to_string(microbatches) + ", " + stages_label() + ", " +
         memory_label() + ", zero " + std::to_string(zero);
}

const std::vector<std::string>& plan_schedule_choices() {
  static const std::vector<std::string> names = {"1f1b",  "gpipe", "interleaved-1f1b", "kfkb",      "zb-h1",
                                                 "zb-h2", "zbv",   "dualpipev",        "pipedream", "ilp"};
  return names;
}

std::vector<std::string> default_plan_schedules() {
  std::vector<std::string> names;
  for (const std::string& s : plan_schedule_choices())
    if (s != "kfkb" && s != "pipedream" && s != "ilp") names.push_back(s);
  return names;
}

namespace {

// The candidates on N GPUs (whole: every GPU of the platform).
void add_layouts(const PlanSpaceLimits& l, int n, bool whole, std::vector<PlanCandidate>& out) {
  const int max_tp = l.node_gpus > 0 ? std::min(8, l.node_gpus) : 8;
  std::vector<std::string> split_rules;  // fit makes twins in the screening, not candidates
  std::copy_if(l.partitions.begin(), l.partitions.end(), std::back_inserter(split_rules),
               [](const std::string& p) { return p != "fit"; });
  for (int tp = 1; tp <= max_tp && tp <= n; tp *= 2) {
    if (n % tp) continue;
    for (int pp = 1; pp <= n / tp && pp <= l.layers; ++pp) {
      if ((n / tp) % pp) continue;
      const int dp = n / tp / pp;
      for (int mbs = 1; mbs <= 8; mbs *= 2) {
        if (l.global_batch % (dp * mbs)) continue;
        const int microbatches = l.global_batch / (dp * mbs);
        std::vector<std::tuple<std::string, int, int>> schedules;  // name, virtual stages, k
        for (const std::string& s : pp == 1 ? std::vector<std::string>{"1f1b"} : l.schedules) {
          if (s == "interleaved-1f1b") {
            for (int v : {2, 4})
              if (pp * v <= l.layers) schedules.emplace_back(s, v, 0);
          } else if (s == "kfkb") {
            for (int k : {2, 3, 4})  // k = 1 is 1F1B
              if (k <= microbatches) schedules.emplace_back(s, 0, k);
          } else {
            schedules.emplace_back(s, 0, 0);
          }
        }
        for (const auto& [schedule, v, k] : schedules)
          for (const std::string& partition : pp > 1 ? split_rules : std::vector<std::string>{"even"})
            for (const char* recompute : {"none", "selective", "full"})
              for (const int zero : dp > 1 ? l.zero_stages : std::vector<int>{0}) {
                PlanCandidate c;
                c.tp = tp, c.pp = pp, c.dp = dp, c.zero = zero;
                c.microbatch_size = mbs, c.microbatches = microbatches;
                c.schedule = schedule, c.virtual_stages = v, c.k = k, c.recompute = recompute;
                if (schedule == "ilp") c.time_limit = "0";  // seed 000's heuristic patterns alone: no CBC
                c.partition = partition;
                c.gpus = whole ? 0 : n;
                out.push_back(c);
              }
      }
    }
  }
}

}  // namespace

std::vector<PlanCandidate> plan_space(const PlanSpaceLimits& l) {
  std::vector<PlanCandidate> out;
  add_layouts(l, l.gpus, true, out);
  if (l.part_platforms)
    for (int n = l.gpus - 1; n >= 1; --n)
      if (l.gpus % n == 0) add_layouts(l, n, false, out);
  return out;
}

}  // namespace pipesim
